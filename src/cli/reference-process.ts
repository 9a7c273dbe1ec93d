/**
 * The embedded reference target in a process of its own: the standalone command
 * (src/reference/main.ts) started as a child, so its CPU (anvil RPC, flashblock timers, the
 * gateway's JSON) and its memory are not the suite's. The handshake is its one `--json` line.
 *
 * Lifetime, by construction:
 * - the child runs in its own process group (`detached`): a terminal's Ctrl-C reaches the suite
 *   alone, which writes its reports and then stops the child (`stop()`: SIGTERM, bounded wait,
 *   SIGKILL), so no check in flight meets a target that died first;
 * - its stdin is a pipe from this process and it runs with `--stop-with-stdin`: however this
 *   process ends, even by SIGKILL, the pipe closes and the child stops (and anvil, by its own
 *   pipe guard, with it).
 * Its log lines (stderr) are never printed: only a bounded tail is kept, for the error when it
 * does not start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import path from 'node:path';
import type { SealGrid } from '../harness/check';

export interface ReferenceProcessOptions {
  profile: 'public' | 'dedicated';
  blockTimeMs?: number;
  flashblockMs?: number;
}

export interface ReferenceProcess {
  baseUrl: string;
  rpcUrl: string;
  profile: 'public' | 'dedicated';
  blockTimeMs: number;
  flashblockMs: number;
  /** Where its seals fall, when it says (every blockTimeMs from sealGridAtMs in its JSON line). */
  sealGrid?: SealGrid;
  signerKey: `0x${string}`;
  pid: number;
  /** From the spawn to the handshake. */
  startupMs: number;
  /** SIGTERM, then SIGKILL after a bounded wait; resolves once the child has exited. Idempotent. */
  stop(): Promise<void>;
}

/** How to run the child; tests replace it with a script that misbehaves. */
export interface Launch {
  execPath: string;
  args: string[];
  startTimeoutMs: number;
  stopTimeoutMs: number;
}

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 5_000;
const STDERR_TAIL = 2048;
const HANDSHAKE_MAX = 16_384;

/**
 * The entry beside this module: the built dist/src/reference/main.js when this is dist/, the
 * TypeScript source through tsx's require hook when this is the source (`npm run conformance`
 * through bin/run-ts.js, jest through scripts/jest-transform.js), as bin/start.js chooses for the commands.
 */
export function defaultLaunch(opts: ReferenceProcessOptions): Launch {
  const ext = path.extname(__filename);
  const entry = path.join(__dirname, '..', 'reference', `main${ext}`);
  const args = [
    ...(ext === '.ts' ? ['--require', require.resolve('tsx/cjs')] : []),
    entry,
    '--json',
    '--stop-with-stdin',
    '--profile',
    opts.profile,
    ...(opts.blockTimeMs !== undefined ? ['--block-time', String(opts.blockTimeMs)] : []),
    ...(opts.flashblockMs !== undefined ? ['--flashblock-ms', String(opts.flashblockMs)] : []),
  ];
  return { execPath: process.execPath, args, startTimeoutMs: START_TIMEOUT_MS, stopTimeoutMs: STOP_TIMEOUT_MS };
}

/**
 * Starts the reference as a child and waits for its handshake; throws with its stderr's tail when
 * it does not start. An abort of `signal` before then stops the child at once (and throws).
 */
export async function startReferenceProcess(
  opts: ReferenceProcessOptions,
  launch: Launch = defaultLaunch(opts),
  signal?: AbortSignal,
): Promise<ReferenceProcess> {
  const started = performance.now();
  const child = spawn(launch.execPath, launch.args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let tail = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => void (tail = (tail + chunk).slice(-STDERR_TAIL)));
  // A write to a child that is gone (EPIPE) is that child's exit, handled below.
  child.stdin!.on('error', () => {});
  // A child that could not be spawned at all (no pid) emits 'error' and never 'exit'; a signal that
  // could not be sent emits it too, which must never throw here (stop() then waits for 'exit').
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()).on('error', () => child.pid === undefined && resolve()));
  const stop = stopper(child, exited, launch.stopTimeoutMs);
  const failed = (why: string) => new Error(`${why}${tail.trim() ? `; its last words: ${tail.trim()}` : ' (it wrote nothing on stderr)'}`);
  try {
    const hello = await handshake(child, launch.startTimeoutMs, failed, signal);
    // From now on neither the child nor its pipes keep this process alive (an embedder that
    // forgets stop() still exits; the closed stdin then stops the child). stop() holds it again.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr]) (s as unknown as Socket).unref();
    child.stdout!.resume(); // nothing more is expected; never let a full pipe block the child
    return { ...hello, pid: child.pid!, startupMs: Math.round(performance.now() - started), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

type Hello = Pick<ReferenceProcess, 'baseUrl' | 'rpcUrl' | 'profile' | 'blockTimeMs' | 'flashblockMs' | 'sealGrid' | 'signerKey'>;

/** The first stdout line, parsed and checked; rejects on exit, error, garbage or time-out. */
function handshake(child: ChildProcess, timeoutMs: number, failed: (why: string) => Error, signal?: AbortSignal): Promise<Hello> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const done = (err: Error | undefined, hello?: Hello) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('close', onClose);
      child.off('error', onError);
      signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(hello!);
    };
    const onData = (chunk: string) => {
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl < 0) {
        if (buf.length > HANDSHAKE_MAX) done(failed(`its first line on stdout is longer than ${HANDSHAKE_MAX} characters`));
        return;
      }
      const line = buf.slice(0, nl);
      const hello = parseHello(line);
      if (hello) done(undefined, hello);
      else done(failed(`it did not answer with its JSON line: ${JSON.stringify(line.slice(0, 200))}`));
    };
    // 'close', not 'exit': by then its stderr has been read to the end (the last words).
    const onClose = (code: number | null, killedBy: NodeJS.Signals | null) =>
      done(failed(`it exited (${killedBy ?? `code ${code}`}) before saying where it listens`));
    const onError = (err: Error) => done(failed(`it could not be run: ${err.message}`));
    const onAbort = () => done(new Error('stopped before it was up'));
    const timer = setTimeout(() => done(failed(`it did not say where it listens within ${timeoutMs} ms`)), timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', onData);
    child.once('close', onClose);
    child.once('error', onError);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort);
  });
}

function parseHello(line: string): Hello | undefined {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const loopback = (u: unknown): u is string => typeof u === 'string' && /^http:\/\/127\.0\.0\.1:\d{1,5}$/.test(u);
  const ms = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;
  if (!loopback(v.baseUrl) || !loopback(v.rpcUrl) || !ms(v.blockTimeMs) || !ms(v.flashblockMs)) return undefined;
  if (v.profile !== 'public' && v.profile !== 'dedicated') return undefined;
  if (typeof v.signerKey !== 'string' || !/^0x[0-9a-f]{64}$/i.test(v.signerKey)) return undefined;
  // Optional: a grid is used only to schedule (never to judge), and only with a positive interval.
  const grid = ms(v.sealGridAtMs) && v.blockTimeMs > 0 ? { sealGrid: { atMs: v.sealGridAtMs, everyMs: v.blockTimeMs } } : {};
  return {
    baseUrl: v.baseUrl,
    rpcUrl: v.rpcUrl,
    profile: v.profile,
    blockTimeMs: v.blockTimeMs,
    flashblockMs: v.flashblockMs,
    ...grid,
    signerKey: v.signerKey as `0x${string}`,
  };
}

function stopper(child: ChildProcess, exited: Promise<void>, timeoutMs: number): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () =>
    (stopping ??= (async () => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      child.ref(); // the wait below must keep this process alive
      const signal = (sig: NodeJS.Signals) => {
        try {
          child.kill(sig);
        } catch {
          // already gone
        }
      };
      signal('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
      if ((await Promise.race([exited, late])) === 'late') {
        signal('SIGKILL');
        await exited;
      }
      clearTimeout(timer);
      child.stdin!.destroy();
    })());
}

/**
 * A child started before the suite has loaded its own modules (run.ts), so the two start-ups
 * overlap; openTarget takes it when it was started with the same options.
 */
let early: { key: string; child: Promise<ReferenceProcess>; abort: AbortController } | undefined;

const keyOf = (opts: ReferenceProcessOptions) => JSON.stringify([opts.profile, opts.blockTimeMs, opts.flashblockMs]);

/** Starts the child now; its failure is said by whoever takes it (takeOrStart), never as an unhandled rejection. */
export function startEarly(opts: ReferenceProcessOptions): void {
  if (early) return;
  const abort = new AbortController();
  const child = startReferenceProcess(opts, defaultLaunch(opts), abort.signal);
  child.catch(() => {});
  early = { key: keyOf(opts), child, abort };
}

/** The child started early with these options, else a new one. */
export function takeOrStart(opts: ReferenceProcessOptions): Promise<ReferenceProcess> {
  if (early?.key === keyOf(opts)) {
    const { child } = early;
    early = undefined;
    return child;
  }
  void discardEarly(); // started for other options: of no use
  return startReferenceProcess(opts);
}

/** Stops a child started early that no run took (a run that ended before opening its target), up or still starting. */
export async function discardEarly(): Promise<void> {
  const left = early;
  early = undefined;
  left?.abort.abort();
  await left?.child.then(
    (ref) => ref.stop(),
    () => {},
  );
}
