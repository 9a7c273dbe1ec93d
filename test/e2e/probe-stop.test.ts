/**
 * A run stopped while its start-up probe waits on a target that takes connections and never
 * answers: Ctrl-C ends it as an interrupt (exit 130), the run's deadline as a run with nothing
 * judged (exit 3), each at once, not after the probe's three tries of --timeout-ms each, and as
 * any stopped run ends: its reports written, every check skipped (cause stopped), never an
 * interface called unreachable for what the stop cut short.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';
import { sink } from '../support/sink';

const ROOT = path.resolve(__dirname, '../..');
/** Three tries of this would be a minute: a run that waits them out fails the test's own time limit. */
const TIMEOUT_MS = '20000';

/** A server that accepts connections and reads requests, and never answers; `connected` resolves at the first connection. */
async function silentServer(): Promise<{ url: string; connected: Promise<void>; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let first!: () => void;
  const connected = new Promise<void>((r) => (first = r));
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('data', () => undefined);
    s.on('error', () => undefined);
    first();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connected,
    close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

let server: Awaited<ReturnType<typeof silentServer>>;
beforeEach(async () => {
  server = await silentServer();
});
afterEach(() => server.close());

/** results.json of a stopped run: its status, the checks it did not skip (none), and how many it skipped as stopped. */
const stoppedRun = (dir: string) => {
  const doc = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as {
    status: string;
    checks: Array<{ id: string; status: string; cause?: string }>;
  };
  return {
    status: doc.status,
    notSkipped: doc.checks.filter((c) => c.status !== 'skipped').map((c) => `${c.id}: ${c.status}`),
    stopped: doc.checks.filter((c) => c.cause === 'stopped').length > 20,
  };
};

it('the run deadline reached during the probe: nothing judged, exit 3, its reports written', async () => {
  const out = sink();
  const dir = mkdtempSync(path.join(tmpdir(), 'probe-stop-'));
  const code = await main(
    ['--rpc-url', server.url, '--timeout-ms', TIMEOUT_MS, '--deadline-ms', '1000', '--report-dir', dir],
    {},
    { out: out.stream, err: out.stream },
  );
  expect({ code, run: stoppedRun(dir) }).toEqual({ code: 3, run: { status: 'incomplete', notSkipped: [], stopped: true } });
  expect(out.text()).toMatch(/run deadline of 1000 ms reached/);
  expect(out.text()).toMatch(/\nexit 3: .*\n$/);
  expect(out.text()).not.toMatch(/unreachable/);
}, 15_000);

it('Ctrl-C during the probe: exit 130 at once, its reports written', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'probe-stop-'));
  const cli = spawn(process.execPath, [path.join(ROOT, 'bin/conformance.js'), '--rpc-url', server.url, '--timeout-ms', TIMEOUT_MS, '--report-dir', dir], {
    cwd: mkdtempSync(path.join(tmpdir(), 'probe-stop-')),
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', CI: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let said = '';
  cli.stdout.on('data', (d) => (said += d));
  cli.stderr.on('data', (d) => (said += d));
  const exited = new Promise<number | null>((r) => cli.on('close', r));
  try {
    await server.connected;
    cli.kill('SIGINT');
    expect({ code: await exited, said }).toMatchObject({ code: 130 });
    expect(stoppedRun(dir)).toMatchObject({ notSkipped: [], stopped: true });
    expect(said).not.toMatch(/unreachable/);
  } finally {
    cli.kill('SIGKILL');
  }
}, 15_000);
