// A user's day, round 2, in unit tests: what summary.md says of a --grep pattern, the defaults the
// files users copy state, and the keys and names people paste.
import { readerDocument } from '../../src/verdict/reader';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/cli/config';
import { Egress } from '../../src/cli/egress';
import { renderSummary } from '../../src/cli/reporters/summary';
import { OPTIONS } from '../../src/cli/options';
import { EXIT_CODES_HELP } from '../../src/verdict/status';
import { subcommandOf } from '../../src/cli/subcommands';
import { allChecks } from '../../suites';
import { checkResult, FULL_SCOPE, runDocument } from '../support/documents';

const ROOT = path.resolve(__dirname, '../..');

describe('summary.md with a --grep pattern', () => {
  it('keeps the backslashes of the pattern in its status line, escaped as its bullets escape them', () => {
    const doc = runDocument([checkResult('rest.token.symbol', 'passed', { needs: ['rest'] })], { ...FULL_SCOPE, grep: /rest\.token\./ });
    const md = renderSummary(readerDocument(doc));
    const status = md.split('\n').find((l) => l.startsWith('**Status: '))!;
    // Markdown renders `\\.` as `\.`: the reader sees the pattern as typed.
    expect(status).toContain('--grep rest\\\\.token\\\\.');
    const bullet = md.split('\n').find((l) => l.startsWith('- ') && l.includes('--grep'))!;
    expect(bullet).toContain('rest\\\\.token\\\\.');
  });
});

describe('.env.example', () => {
  /** Each variable of .env.example with the defaults its comment block states. */
  const documented = (): Map<string, string[]> => {
    const out = new Map<string, string[]>();
    let comment: string[] = [];
    for (const line of readFileSync(path.join(ROOT, '.env.example'), 'utf8').split('\n')) {
      if (line.startsWith('#')) comment.push(line);
      const variable = /^([A-Z_]+)=/.exec(line)?.[1];
      if (variable) {
        out.set(
          variable,
          [...comment.join(' ').matchAll(/default:? (\w[\w.]*)/g)].map((m) => m[1]),
        );
        comment = [];
      }
    }
    return out;
  };

  it('states the same defaults as --help and docs/flags.md (one table: src/cli/options.ts)', () => {
    const stated = documented();
    expect(stated.get('CONCURRENCY')).toEqual(['16']);
    for (const [flag, variable, , what] of OPTIONS) {
      const defaults = stated.get(variable);
      const fromHelp = /\(default (\w+)/.exec(what)?.[1];
      if (!defaults?.length || fromHelp === undefined) continue;
      expect([flag, defaults]).toEqual([flag, expect.arrayContaining([fromHelp])]);
    }
  });
});

describe('the signer key as people paste it', () => {
  const key = `0x${'ab12'.repeat(16)}`;
  const load = (value: string) => loadConfig(['--rpc-url', 'http://127.0.0.1:8545'], { SIGNER_PRIVATE_KEY: value });
  const refusal = (value: string): string => {
    try {
      load(value);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('accepted');
  };

  it('with a trailing newline (from `cat key.txt`) or spaces around it: trimmed, as URLs are', () => {
    expect(load(`${key}\n`).signerKey).toBe(key);
    expect(load(`  ${key}\r\n`).signerKey).toBe(key);
    expect(loadConfig(['--signer-key', `${key}\n`, '--rpc-url', 'http://127.0.0.1:8545'], {}).signerKey).toBe(key);
  });

  it('without 0x (as wallets export it): the same key, taken with 0x', () => {
    expect(load(key.slice(2)).signerKey).toBe(key);
    expect(load(`${key.slice(2)}\n`).signerKey).toBe(key);
  });

  it.each([12, 24])('a %i-word recovery phrase: named as one, a private key asked for with how to derive it, never echoed', (n) => {
    const words = ['test', 'junk', 'abandon', 'zoo', 'wrong', 'legal', 'mother', 'river'];
    const phrase = Array.from({ length: n }, (_, i) => words[i % words.length]).join(' ');
    const message = refusal(phrase);
    expect(message).toContain(`looks like a ${n}-word recovery phrase (not shown): a private key is needed`);
    expect(message).toContain('cast wallet private-key --mnemonic "$MNEMONIC"');
    for (const w of ['junk', 'abandon', 'legal', 'mother', 'river']) expect(message).not.toContain(w);
    // The gate knows it too, before anything is parsed.
    expect(Egress.forRun([], { SIGNER_PRIVATE_KEY: phrase }).redactor.text(`say ${phrase}`)).not.toContain('abandon');
  });

  it('a key cut short or with a stray character: why, never the value', () => {
    expect(refusal(key.slice(0, 40))).toMatch(/expected 0x followed by 64 hex digits, and it has 38 hex digits \(value not shown\)$/);
    expect(refusal(`${key.slice(0, 60)}zz${key.slice(62)}`)).toMatch(/characters that are not hex digits/);
    expect(refusal(`${key.slice(0, 30)} ${key.slice(30)}`)).toMatch(/whitespace inside/);
  });

  it.each([
    ['zero', `0x${'0'.repeat(64)}`],
    ['the group order', '0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141'],
    ['above the group order', `0x${'f'.repeat(64)}`],
  ])('64 hex digits that no account has (%s): refused as a configuration mistake, never a crash', (_, value) => {
    expect(refusal(value)).toMatch(/64 hex digits, but not a private key: it must be above 0 and below the secp256k1 group order \(value not shown\)$/);
  });
});

describe("Foundry's ETH_RPC_URL", () => {
  const node = 'https://node.example/v2/abcdef0123456789';

  it('is not read, and said once naming RPC_URL, with how to use it when no JSON-RPC URL was given', () => {
    const cfg = loadConfig([], { ETH_RPC_URL: node });
    expect(cfg.rpcUrl).toBeUndefined();
    expect(cfg.warnings).toEqual([
      `note: ETH_RPC_URL (Foundry's name) is set but not read; the suite reads --rpc-url or RPC_URL: to judge that node, pass --rpc-url "$ETH_RPC_URL" (or set RPC_URL)`,
    ]);
    expect(cfg.warnings.join('\n')).not.toContain('abcdef');
  });

  it('beside --rpc-url: named, not used', () => {
    const cfg = loadConfig(['--rpc-url', 'http://127.0.0.1:8545'], { ETH_RPC_URL: node });
    expect(cfg.rpcUrl).toBe('http://127.0.0.1:8545');
    expect(cfg.warnings).toEqual([`note: ETH_RPC_URL (Foundry's name) is set but not read; the suite reads --rpc-url or RPC_URL`]);
  });

  it('under CI with no target: the refusal names it and the flag to pass', () => {
    expect(() => loadConfig([], { CI: 'true', ETH_RPC_URL: node })).toThrow(
      /no target under CI: .*ETH_RPC_URL is set but not read: pass --rpc-url "\$ETH_RPC_URL"/,
    );
  });
});

describe('docs that are true', () => {
  const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
  const row = (text: string, exit: number) => text.split('\n').filter((l) => l.startsWith(`| ${exit} |`));

  it('a run past its deadline is incomplete (exit 3), not non-conformant, in README.md, docs/results.md and --help', () => {
    for (const file of ['README.md', 'docs/results.md']) {
      // Exit 1 may say that a run already failed stays failed when its deadline then stops it; never that a deadline alone is exit 1.
      expect(row(read(file), 1).join('\n')).not.toMatch(/deadline (passed|alone)|past (its|the) deadline/);
      expect(row(read(file), 3).join('\n')).toMatch(/deadline/);
    }
    const help = (exit: number) =>
      EXIT_CODES_HELP.split('\n').find((l) =>
        l
          .replace(/^exit codes:/, '')
          .trimStart()
          .startsWith(`${exit} `),
      )!;
    expect(help(1)).toMatch(/non-conformant/);
    expect(help(1)).not.toMatch(/deadline/);
    expect(help(3)).toMatch(/incomplete .*deadline/);
  });

  it('no page speaks of one annotation per failed check: it is one per root cause', () => {
    const pages = [
      'README.md',
      'action.yml',
      'examples/github-actions.yml',
      'examples/certify-node.yml',
      ...readdirSync(path.join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    for (const page of pages)
      expect([page, read(page)]).toEqual([page, expect.not.stringMatching(/annotation per failed check|each failed check is an annotation/i)]);
    expect(read('README.md')).toContain('one annotation per root cause');
  });

  it("--live's exit 3 names the quiet chain beside unreachable and throttled, with checks that exist", () => {
    const help = runHelp(['verify-certificate', '--help']);
    expect(help).toMatch(/3 --live: .*quiet chain/s);
    const certification = read('docs/certification.md');
    expect(row(certification, 3).join('\n')).toMatch(/quiet chain/);
    const ids = new Set(allChecks().map((c) => c.id));
    const named = [...certification.slice(certification.indexOf('A third cause of exit 3')).matchAll(/`(rpc\.[\w.-]+)`/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const id of named) expect(ids).toContain(id);
  });

  it('.env is read from where the command is run, which under npm run is not the package root', () => {
    expect(read('README.md')).toMatch(/`\.env`\s+in the directory you run the command from is read[^]*not the\s+package root/);
    expect(read('docs/flags.md')).toMatch(/under `npm run` that is the directory npm was run in\s+\(`INIT_CWD`\), not the package root/);
  });

  it('proxies: http:// targets go through a CONNECT tunnel too, and the docs say so', () => {
    expect(read('docs/ci.md')).toMatch(/Both kinds of target go through\s+an HTTP `CONNECT` tunnel/);
  });

  it('the supported Node.js is the one package.json enforces, stated the same in README.md and docs/install.md', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe('>=20.3');
    expect(read('README.md')).toContain('Node.js 20.3 or later — every command checks it first');
    expect(read('docs/install.md')).toContain('Node.js 20.3 or later (package.json `engines`; every command checks it');
  });
});

/** What a subcommand prints on stdout (its --help). */
function runHelp(argv: string[]): string {
  let text = '';
  const stream = { write: (t: string) => ((text += t), true), isTTY: false };
  void subcommandOf(argv)!({ out: stream, err: stream });
  return text;
}
