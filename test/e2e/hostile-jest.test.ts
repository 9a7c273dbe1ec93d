/**
 * The jest adapter (jest.conformance.config.ts) under GitHub Actions, against a target whose every
 * answer carries workflow commands behind each whitespace character GitHub's runner strips before
 * it looks for `::`, and terminal escapes. Whatever jest prints of the run (test failures, warnings,
 * the run's own console, jest's default and github-actions reporters), no line the runner would
 * read as a command is the target's, and no escape sequence of the target's reaches the log.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rpcReply, startHostile, type HostileServer } from '../support/hostile';

const ROOT = path.resolve(__dirname, '../..');
const JEST = path.join(ROOT, 'node_modules/jest/bin/jest.js');

/**
 * What the runner's String.Trim() strips before it looks for `::` (.NET's Char.IsWhiteSpace: the
 * Unicode White_Space characters), U+FEFF (JavaScript's \s has it), U+180E (whitespace in older
 * Unicode), and the zero-width characters that show nothing before a command.
 */
const BLANKS = [
  ' ',
  '\t',
  '\u000b',
  '\u000c',
  '\u0085',
  '\u00a0',
  '\u1680',
  ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)),
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
  '\u180e',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
];

/**
 * The target text: short, so that it survives the cut of a failure message whole, and with the
 * command behind the n-th blank (each string the target sends takes the next one).
 */
let sent = 0;
const payload = () => {
  const n = sent++ % BLANKS.length;
  return `x\n${BLANKS[n]}${BLANKS[n]}::error file=forged.ts,line=1::FORGED-${n}\n::add-mask::FORGED-mask\n\u001b]0;pwned\u0007\u001b[2J\r\u001b[2K\u001b[8mhidden x ##[error]FORGED-old`;
};

/** A log line's start as the runner reads it: every blank above stripped. */
const RUNNER_BLANK = new RegExp(`^[${BLANKS.join('').replace(/[\t\u000b\u000c]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}]*`);
/** The lines GitHub's runner would obey: its lines split on CR and LF, blanks stripped, `::` first (or `##[` anywhere). */
function commandLines(log: string): string[] {
  return log.split(/\r\n|\r|\n/).filter((l) => l.replace(RUNNER_BLANK, '').startsWith('::') || l.includes('##['));
}

let target: HostileServer;
const dirs: string[] = [];
beforeAll(async () => {
  target = await startHostile((req) =>
    req.method === 'POST'
      ? rpcReply(req, () => ({ error: { code: -32000, message: payload(), data: payload() } }))
      : {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            tokens: [
              {
                contract_address: payload(),
                symbol: payload(),
                name: payload(),
                decimals: 18,
                icon_url: payload(),
                isin: payload(),
                nav_price_updated_at: payload(),
              },
            ],
          }),
        },
  );
});
afterAll(async () => {
  await target?.close();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

/** `jest -c jest.conformance.config.ts` as a GitHub Actions job runs it, with jest's github-actions reporter too; bounded in time. */
function conformanceJest(): Promise<{ code: number | null; log: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hostile-jest-'));
  dirs.push(dir);
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [JEST, '-c', path.join(ROOT, 'jest.conformance.config.ts'), '--ci', '--reporters=default', '--reporters=github-actions'],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          // No shared v8-compile-cache beside the other jests of this checkout (scripts/jest-tiers.js, JEST_ENV).
          DISABLE_V8_COMPILE_CACHE: '1',
          GITHUB_ACTIONS: 'true',
          CI: 'true',
          BASE_URL: target.origin,
          RPC_URL: target.origin,
          ONLY: 'rest,rpc',
          TIMEOUT_MS: '3000',
          REPORT_DIR: path.join(dir, 'reports'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    // The job's log is both streams, as the runner reads them.
    let log = '';
    const keep = (d: Buffer) => (log = (log + d.toString('utf8')).slice(-4_000_000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`jest -c jest.conformance.config.ts did not finish within 240 s\n${log.slice(-3000)}`));
    }, 240_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, log });
    });
  });
}

describe('the jest adapter under GITHUB_ACTIONS=true, against a target answering workflow commands and escapes', () => {
  let run: { code: number | null; log: string };
  beforeAll(async () => {
    run = await conformanceJest();
  }, 250_000);

  it('fails the run, and shows the target text as data', () => {
    expect(run.code).toBe(1);
    expect(run.log).toMatch(/● rest\./); // failures are printed
    // The payload reached the log behind most blanks (which strings a failure quotes depends on the
    // order the answers came in; test/unit/untrusted.test.ts takes every blank in turn).
    expect(BLANKS.filter((_, n) => run.log.includes(`FORGED-${n}`)).length).toBeGreaterThanOrEqual(20);
  });

  it("no line the runner would obey is the target's, whatever blank precedes it", () => {
    const commands = commandLines(run.log);
    expect(commands.filter((l) => /FORGED/.test(l.split('::').slice(0, 3).join('::')) || l.includes('##['))).toEqual([]);
    // What is left are the commands of jest's github-actions reporter, titled by a check id or the run's status, and folds.
    for (const l of commands)
      expect(l.replace(RUNNER_BLANK, '')).toMatch(
        /^::(group::|endgroup::$|error file=[^,]*,line=[^,]*,title=(conformance run: |(rest|rpc|cross|preconf)\.[\w.-]+::))/,
      );
  });

  it("no terminal escape of the target's reaches the log", () => {
    // jest colours its own code frames; nothing else may control the terminal, and no colour of the target's passes.
    expect(run.log.replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(/\u001b|\u0007|\u009b|\r/);
    expect(run.log).not.toContain('\u001b[8mhidden');
    expect(run.log).toContain('␛]0;pwned␇'); // shown as pictures instead
  });
});
