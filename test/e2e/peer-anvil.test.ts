// A real peer no one here wrote: the JSON-RPC checks against raw anvil (no gateway), with its
// known differences from the spec recorded in expectations/anvil.yml (reason + public link).
//   with the file:    exit 0, and only because every failure is an expected one
//   without the file: exit 1
// anvil is the binary of node_modules, started here with --block-time 1 on a loopback port
// it picks itself (--port 0), and killed (by its pid) in afterAll.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { main } from '../../src/cli/main';
import type { RunDocument } from '../../src/verdict/document';
import { sink } from '../support/sink';

const ROOT = path.resolve(__dirname, '../..');
const EXPECTATIONS = path.join(ROOT, 'expectations/anvil.yml');
/** anvil's first dev account (public, well known); funded on every fresh anvil. */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

function anvilBinary(): string {
  return path.join(path.dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');
}

let anvil: ChildProcess | undefined;
let url = '';

/** Start anvil on a port of its own choosing and read it from its banner. */
function startAnvil(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(anvilBinary(), ['--block-time', '1', '--host', '127.0.0.1', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    anvil = child;
    let out = '';
    const timer = setTimeout(() => reject(new Error(`anvil did not report its port within 15 s:\n${out.slice(-2000)}`)), 15_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      if (out.length < 100_000) out += d;
      const m = /Listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${m[1]}`);
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited (${code}) before listening:\n${out.slice(-2000)}`));
    });
  });
}

async function ready(u: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(u, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
        signal: AbortSignal.timeout(1000),
      });
      if (r.ok) return void (await r.text());
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`anvil at ${u} did not answer`);
}

async function run(extra: string[]): Promise<{ code: number; doc: RunDocument; console: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'peer-anvil-'));
  const out = sink();
  try {
    const code = await main(
      ['--rpc-url', url, '--profile', 'dedicated', '--only', 'rpc,preconf', '--signer-key', DEV_KEY, '--report-dir', dir, ...extra],
      {},
      { out: out.stream, err: out.stream },
    );
    const doc = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunDocument;
    return { code, doc, console: out.text() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const requiredFailures = (doc: RunDocument) =>
  doc.checks
    .filter((c) => c.status === 'failed' && c.level === 'required')
    .map((c) => c.id)
    .sort();

beforeAll(async () => {
  url = await startAnvil();
  await ready(url);
}, 30_000);

afterAll(async () => {
  const child = anvil;
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([gone, new Promise((r) => (timer = setTimeout(r, 3000)))]);
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

describe('raw anvil as a peer (groups rpc and preconf, profile dedicated)', () => {
  const file = YAML.parse(readFileSync(EXPECTATIONS, 'utf8')) as { target?: string; expectations: Array<{ id: string; reason: string; link?: string }> };

  it('expectations/anvil.yml gives every known failure a reason and a public link', () => {
    expect(typeof file.target).toBe('string');
    expect(file.expectations.length).toBeGreaterThan(0);
    for (const e of file.expectations) {
      expect(e.reason.trim().length).toBeGreaterThan(20);
      expect(e.link).toMatch(/^https:\/\/github\.com\/(ethereum\/execution-apis|foundry-rs\/foundry)\//);
    }
  });

  it('with the expectations file: exit 0, only because every failure is expected', async () => {
    const r = await run(['--expectations', EXPECTATIONS]);
    const detail = () => `exit ${r.code}\n${r.console.slice(-6000)}`;
    if (r.code !== 0) throw new Error(detail());
    expect(r.doc.counts.failed).toBe(0);
    expect(r.doc.counts['stale-expectation']).toBe(0);
    // Exit 0 rests on expectations: at least one required check did fail, as expected.
    const expected = r.doc.checks.filter((c) => c.expectation?.outcome === 'expected-failure');
    expect(expected.filter((c) => c.level === 'required').length).toBeGreaterThanOrEqual(1);
    for (const c of r.doc.checks.filter((x) => x.status === 'failed')) expect(c.expectation?.outcome).toBe('expected-failure');
    // The run judged anvil, it did not skip its way to exit 0.
    expect(r.doc.counts.passed).toBeGreaterThanOrEqual(20);
  }, 120_000);

  it('without the expectations file: exit 1, failing exactly the required checks the file names', async () => {
    const r = await run([]);
    expect(r.code).toBe(1);
    const named = new Set(file.expectations.map((e) => e.id));
    const failed = requiredFailures(r.doc);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed.filter((id) => !named.has(id))).toEqual([]);
  }, 120_000);
});
