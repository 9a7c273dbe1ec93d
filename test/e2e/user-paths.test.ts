// The three users' paths, end to end through the CLI (in process) against the embedded reference
// target: a URL forgotten (judged what it could; exit 3 only with --require full), a public node
// judged with the default dedicated profile (one failure naming --profile public, the rest
// blocked by it), and a URL pasted from `npm run reference` (exit 2 with the value to pass).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/cli/config';
import { main } from '../../src/cli/main';
import { factsOf } from '../../src/verdict/status';
import type { RunDocument } from '../../src/verdict/document';
import { decideRoots } from '../../src/verdict/root-causes';
import { startReference, type ReferenceTarget } from '../../src/reference';
import { Raw, startProxy, type Proxy } from '../faults/proxy';
import { sink } from '../support/sink';

const ROOT = path.resolve(__dirname, '../..');
let ref: ReferenceTarget;
const dirs: string[] = [];

beforeAll(async () => {
  ref = await startReference({ profile: 'dedicated', blockTimeMs: 1000 });
}, 60_000);

afterAll(async () => {
  await ref?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function run(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; console: string; doc?: RunDocument }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'user-paths-'));
  dirs.push(dir);
  const out = sink();
  const code = await main([...argv, '--report-dir', dir, '--timeout-ms', '3000', '--deadline-ms', '90000'], env, { out: out.stream, err: out.stream });
  let doc: RunDocument | undefined;
  try {
    doc = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunDocument;
  } catch {
    doc = undefined;
  }
  return { code, console: out.text(), doc };
}

describe('a URL forgotten', () => {
  it('by default, what the given URL allows is judged and passes: exit 0, the scope and --require full named', async () => {
    const r = await run(['--base-url', ref.baseUrl]);
    expect(r.doc!.counts.passed).toBeGreaterThan(0);
    expect([r.doc!.status, r.doc!.scope.required, r.code]).toEqual(['conformant', 'none', 0]);
    expect(r.console).toContain('status: conformant — JSON-RPC interface not judged (no --rpc-url)');
    expect(r.console).toMatch(/^note: not the full scope \(.*no --rpc-url.*\); with --require full .* this run would exit 3$/m);
  }, 90_000);

  it('with --require full (or REQUIRE=full) a single URL is incomplete: exit 3, saying what is missing', async () => {
    const r = await run(['--base-url', ref.baseUrl], { REQUIRE: 'full' });
    expect([r.doc!.status, r.doc!.scope.required, r.code]).toEqual(['incomplete', 'full', 3]);
    expect(r.doc!.statusReasons.join('\n')).toMatch(/^--require full: .*JSON-RPC interface not judged \(no --rpc-url\)/m);
    expect(r.console).toMatch(/^why: .*--require full: /m);
  }, 90_000);

  it('a selection that judges nothing is incomplete even without --require: exit 3, "nothing judged"', async () => {
    const r = await run(['--base-url', ref.baseUrl, '--grep', '^rest\\.openapi\\.']);
    expect([r.doc!.status, r.code]).toEqual(['incomplete', 3]);
    expect(r.console).toMatch(/^why: nothing judged: no required check came to a verdict/m);
  }, 90_000);
});

describe('a public node judged with the default (dedicated) profile', () => {
  let proxy: Proxy;
  beforeAll(async () => {
    proxy = await startProxy({
      restUpstream: ref.baseUrl,
      rpcUpstream: ref.rpcUrl,
      rpc: async (call, next) =>
        call.method === 'eth_getBlockReceipts' ? Raw.json(403, { jsonrpc: '2.0', id: call.id ?? null, error: { code: -32001, message: 'forbidden' } }) : next(),
    });
  });
  afterAll(() => proxy?.stop());

  it('is one failure naming --profile public; every other check needing eth_getBlockReceipts is blocked by it', async () => {
    const r = await run(['--rpc-url', proxy.rpcUrl, '--signer-key', ref.signerKey, '--only', 'rpc,preconf', '--grep', '^(?!preconf\\.latency\\.)']);
    const failed = r.doc!.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.id)).toEqual(['rpc.getBlockReceipts.block.latest']);
    expect(failed[0].hint).toBe('if the target is a public node address (where 5.2 refuses this method), run with --profile public');
    const blocked = r.doc!.checks.filter((c) => c.blockedBy === 'rpc.getBlockReceipts.block.latest').map((c) => c.id);
    expect(blocked).toEqual(
      expect.arrayContaining(['rpc.getBlockReceipts.block.pending', 'rpc.history.getBlockReceipts.past-block', 'preconf.receipts.pending-block']),
    );
    expect(r.code).toBe(1);
    // The fix is on a line of its own in the console, not cut off with the reason.
    expect(r.console).toMatch(
      /✗ fails the run \(1\):\n {2}✗ rpc\.getBlockReceipts\.block\.latest .*\n {6}→ if the target is a public node address \(where 5\.2 refuses this method\), run with --profile public\n/,
    );
  }, 120_000);
});

describe('a URL pasted from `npm run reference`', () => {
  it('the list URL as --base-url: exit 2 with the base URL to pass', async () => {
    const r = await run(['--base-url', `${ref.baseUrl}/v1/tokenized-stocks`, '--rpc-url', ref.rpcUrl]);
    expect(r.code).toBe(2);
    expect(r.console).toContain(`: --base-url ${ref.baseUrl}\n`);
    expect(r.doc).toBeUndefined();
  });

  it('host:port without a scheme: exit 2 suggesting http://', async () => {
    const r = await run(['--rpc-url', 'localhost:8545']);
    expect(r.code).toBe(2);
    expect(r.console).toContain('did you mean --rpc-url http://localhost:8545?');
  });
});

/**
 * The CLI's main with no flags, in this process: its exit code and its two streams apart. (The docs'
 * two commands for these mistakes run as a script runs them in test/e2e/doc-commands.test.ts.)
 */
async function bare(env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  const [out, err] = [sink(), sink()];
  const code = await main([], { NO_COLOR: '1', ...env }, { out: out.stream, err: err.stream });
  return { code, stdout: out.text(), stderr: err.text() };
}

describe('CI never passes on nothing', () => {
  it('CI=true REQUIRE=full BASEURL=… (the variable misspelt): exit 2 naming BASE_URL, no run, the value not echoed', async () => {
    const r = await bare({ CI: 'true', REQUIRE: 'full', BASEURL: 'https://api.staging.example' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^conformance: BASEURL is set, but the suite reads BASE_URL: did you mean BASE_URL\?/m);
    expect(r.stderr + r.stdout).not.toContain('staging');
    expect(r.stdout).not.toContain('target:');
  }, 60_000);

  it('CI=true with no URL at all: exit 2 naming --embedded; GITHUB_ACTIONS=true alike', async () => {
    for (const env of [{ CI: 'true' }, { CI: '', GITHUB_ACTIONS: 'true' }] as Array<Record<string, string>>) {
      const r = await bare(env);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^conformance: no target under CI: .*--embedded/m);
    }
  }, 60_000);

  it('outside CI a near miss is a warning and the run goes on', async () => {
    const r = await run(['--base-url', ref.baseUrl, '--grep', '^rest\\.list\\.'], { RPCURL: ref.rpcUrl });
    expect(r.console).toMatch(/^conformance: warning: RPCURL is set, but the suite reads RPC_URL: did you mean RPC_URL\?/m);
    // The run went on, judging the REST URL it was given: the list checks it selected pass, nothing fails.
    expect([r.doc!.status, r.code, r.doc!.counts.failed]).toEqual(['conformant', 0, 0]);
    const passed = r.doc!.checks.filter((c) => c.status === 'passed').map((c) => c.id);
    expect(passed.length).toBeGreaterThan(0);
    expect(passed.filter((id) => !id.startsWith('rest.list.'))).toEqual([]);
  }, 90_000);
});

describe('the other interface at a URL is one root cause, not a spec verdict', () => {
  it('--rpc-url pointing at the REST API: exit 2 naming the swap and the fix, nothing judged', async () => {
    const r = await run(['--base-url', ref.baseUrl, '--rpc-url', ref.baseUrl]);
    expect(r.code).toBe(2);
    expect(r.console).toMatch(
      /^conformance: --rpc-url does not speak JSON-RPC: eth_chainId was answered with HTTP 40[45] .*did you swap --base-url and --rpc-url\?/m,
    );
    expect(r.console.match(/^conformance: /gm)).toHaveLength(1);
    expect(r.doc).toBeUndefined();
  }, 60_000);

  it('--base-url pointing at the node: exit 2 naming the swap', async () => {
    const r = await run(['--base-url', ref.rpcUrl, '--rpc-url', ref.rpcUrl]);
    expect(r.code).toBe(2);
    expect(r.console).toMatch(/^conformance: --base-url answers like a JSON-RPC node .*did you swap --base-url and --rpc-url\?/m);
    expect(r.doc).toBeUndefined();
  }, 60_000);

  it('both URLs swapped: one line per URL, exit 2', async () => {
    const r = await run(['--base-url', ref.rpcUrl, '--rpc-url', ref.baseUrl]);
    expect(r.code).toBe(2);
    expect(r.console.match(/did you swap/g)).toHaveLength(2);
  }, 60_000);
});

describe('a target that is down', () => {
  it('both interfaces down: each headlined as unreachable once, every other check blocked by it, never worded as an answer', async () => {
    const r = await run(['--base-url', 'http://127.0.0.1:1', '--rpc-url', 'http://127.0.0.1:2', '--timeout-ms', '1000']);
    expect(r.code).toBe(1);
    const roots = decideRoots(r.doc!.checks, factsOf(r.doc!)).roots;
    expect(roots.filter((x) => x.failsRun).map((x) => x.id)).toEqual(['target unreachable: rest', 'target unreachable: rpc']);
    // The check standing in states the interface's one failure: the root's result, not a check it covers.
    const rest = roots.find((x) => x.unreachable === 'rest')!;
    expect(rest.result?.id).toBe('rest.list.status-200');
    expect(rest.blocked).not.toContain('rest.list.status-200');
    expect(r.console.match(/REST target unreachable/g)?.length ?? 0).toBeLessThanOrEqual(2);
  }, 90_000);
});

/** `npm run reference -- <args>` until its answer is out, then SIGTERM: what it printed on stdout. */
function referenceAnswer(args: string[], until: RegExp): Promise<string> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'src/reference/main.ts'), ...args], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { PATH: process.env.PATH ?? '' },
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`no answer within 60 s: ${out}`))), 60_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (until.test(out)) child.kill('SIGTERM');
    });
    child.on('exit', () => (clearTimeout(timer), resolve(out)));
  });
}

describe('`npm run reference`: its advice judges everything', () => {
  it('the printed "judge it:" line and the --json `judge` flags configure a full-scope run: both URLs, the dev signer, --require full', async () => {
    const [text, json] = await Promise.all([
      referenceAnswer(['--block-time', '1000'], /Ctrl-C/),
      referenceAnswer(['--json', '--block-time', '1000', '--profile', 'public'], /\n/),
    ]);
    const line = /^judge it: npm run conformance -- (.*)$/m.exec(text)![1].split(' ');
    const answer = JSON.parse(json.split('\n')[0]) as { judge: string[]; signerKey: string; baseUrl: string; rpcUrl: string };
    for (const [args, profile] of [
      [line, 'dedicated'],
      [answer.judge, 'public'],
    ] as const) {
      const cfg = loadConfig([...args], { CI: 'true' });
      expect([cfg.embedded, cfg.require, cfg.profile, Boolean(cfg.baseUrl && cfg.rpcUrl && cfg.signerKey)]).toEqual([false, 'full', profile, true]);
    }
    expect(answer.judge).toEqual([
      '--base-url',
      answer.baseUrl,
      '--rpc-url',
      answer.rpcUrl,
      '--signer-key',
      answer.signerKey,
      '--profile',
      'public',
      '--require',
      'full',
    ]);
  }, 90_000);
});

describe('verify-certificate', () => {
  it('accepts the path of certificate.json itself, as well as its directory', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'user-paths-cert-'));
    dirs.push(dir);
    const out = sink();
    await main(
      ['--base-url', ref.baseUrl, '--grep', '^rest\\.list\\.', '--certify', '--samples', '2', '--report-dir', dir],
      {},
      { out: out.stream, err: out.stream },
    );
    for (const arg of [dir, path.join(dir, 'certificate.json')]) {
      const v = sink();
      // An unsigned certificate is accepted only as self-reported, and says so.
      expect(await main(['verify-certificate', arg, '--allow-self-reported'], {}, { out: v.stream, err: v.stream })).toBe(0);
      expect(v.text()).toMatch(/^certified status: conformant\ncertificate SELF-REPORTED, not verified/);
    }
  }, 90_000);
});
