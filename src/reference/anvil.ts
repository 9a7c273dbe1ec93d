// Starts a real anvil node on loopback, tied to this process's lifetime.
//
// Orphan guard: anvil runs under a tiny `sh` wrapper whose stdin is a pipe from us. When
// this process goes away for any reason (clean stop, crash, SIGKILL), the kernel closes
// the pipe, the wrapper's `read` sees EOF and it kills anvil. No polling, no extra node.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { locateAnvil } from './anvil-binary';

export interface AnvilOptions {
  chainId: number;
  log: (line: string) => void;
  /** Called once anvil is spawned, while it boots: work done here overlaps its start-up. */
  onSpawned?: () => void;
}

export interface AnvilProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

// $a is anvil; the watcher subshell reads the inherited pipe (fd 3, because an asynchronous
// list otherwise gets /dev/null as stdin) and kills anvil at EOF. The wrapper exits with anvil.
const WRAPPER = [
  'exec 3<&0',
  '"$@" </dev/null 3<&- & a=$!',
  'echo "$a"',
  '(read -r _ <&3; kill "$a" 2>/dev/null) & w=$!',
  'exec 3<&-',
  'trap \'kill "$a" 2>/dev/null\' TERM HUP INT',
  'wait "$a"; rc=$?',
  // wait returns early when a trapped signal arrives; make sure anvil is gone before exiting.
  'while kill -0 "$a" 2>/dev/null; do wait "$a"; done',
  'kill "$w" 2>/dev/null',
  'exit "$rc"',
].join('\n');

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 3_000;
const PORT_ATTEMPTS = 5;

/** The anvil binary of the optional dependency; throws the one-line install hint when absent. */
export function anvilBinary(): string {
  const where = locateAnvil();
  if (!where.found) throw new Error(where.problem);
  return where.binary;
}

export async function startAnvil(opts: AnvilOptions): Promise<AnvilProcess> {
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    // Another process may grab the probed port before anvil binds it; then try a new one.
    const port = await freePort();
    try {
      return await launch(port, opts);
    } catch (err) {
      lastError = err as Error;
      if (!/address (already )?in use/i.test(lastError.message)) throw lastError;
      opts.log(`anvil: port ${port} was taken, retrying`);
    }
  }
  throw lastError ?? new Error('anvil did not start');
}

async function launch(port: number, opts: AnvilOptions): Promise<AnvilProcess> {
  const args = [
    '--no-mining', // blocks are sealed by the gateway's timer, see preconf.ts
    // Pool (and so block) order is arrival order: a later flashblock appends to the block
    // being built and never moves earlier pre-confirmed transactions, whatever their fees.
    '--order',
    'fifo',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    String(opts.chainId),
    '--silent',
  ];
  const child = spawn('/bin/sh', ['-c', WRAPPER, 'anvil-guard', anvilBinary(), ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    // Own session: a Ctrl-C aimed at our process group must not kill anvil before we stop it.
    detached: true,
  });
  opts.onSpawned?.();
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4096);
    for (const line of chunk.split('\n')) if (line.trim()) opts.log(`anvil: ${line.trim()}`);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;

  try {
    const pid = await readPid(child, exited);
    await waitReady(url, exited, () => stderr);
    // From now on neither the child nor its pipes keep an embedding process alive (a test
    // runner that forgets stop() can still exit); the guard kills anvil when we go.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr]) (s as unknown as Socket | null)?.unref();
    return {
      url,
      pid,
      stop: () => stopGuarded(child, pid, exited),
    };
  } catch (err) {
    await stopGuarded(child, undefined, exited);
    throw err;
  }
}

function readPid(child: ChildProcess, exited: Promise<number | null>): Promise<number> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(Number(buf.slice(0, nl)));
    });
    void exited.then((code) => reject(new Error(`anvil wrapper exited (${code}) before reporting a pid`)));
  });
}

async function waitReady(url: string, exited: Promise<number | null>, stderr: () => string): Promise<void> {
  let dead: number | null | undefined;
  void exited.then((code) => (dead = code));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (dead !== undefined) throw new Error(`anvil exited (${dead}): ${stderr().trim() || 'no output'}`);
    // A foreign process could own the port; only trust the answer if our anvil still runs.
    if ((await answers(url)) && dead === undefined) return;
    await sleep(5);
  }
  throw new Error(`anvil did not answer on ${url} within ${READY_TIMEOUT_MS} ms`);
}

/**
 * Whether anvil answers eth_chainId with HTTP 200 within a second. node:http, not fetch: the
 * first fetch of a process loads Node's bundled undici, a tenth of the reference's start-up.
 */
function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, timeout: 1000, agent: false }, (res) => {
      res.resume();
      // A body cut short is no answer.
      res.on('close', () => resolve(res.complete && res.statusCode === 200));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end('{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}');
  });
}

async function stopGuarded(child: ChildProcess, anvilPid: number | undefined, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin?.end(); // EOF: the wrapper kills anvil and exits
  if (await settlesWithin(exited, STOP_TIMEOUT_MS)) return;
  // The wrapper is stuck: kill both directly.
  for (const pid of [anvilPid, child.pid]) {
    if (pid === undefined) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await settlesWithin(exited, STOP_TIMEOUT_MS);
}

/** True if p settles within ms; the timer is cleared so it never holds the process open. */
function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
