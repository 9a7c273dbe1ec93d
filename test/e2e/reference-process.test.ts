/**
 * The embedded reference target as a child process (src/cli/reference-process.ts), with real
 * processes: it starts and answers, stop() ends it and its anvil, a child that does not start
 * says why, and a parent killed outright takes the child and anvil with it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultLaunch, discardEarly, startEarly, startReferenceProcess, takeOrStart, type Launch } from '../../src/cli/reference-process';
import { descendants, gone, killAll, processTable } from '../support/processes';

const ROOT = path.resolve(__dirname, '../..');

/** anvil's own process (not its sh guard) among `pids`. */
const anvilAmong = (pids: number[]): number[] => {
  const table = processTable();
  return pids.filter((p) => table.has(p) && /\banvil\b/.test(commandOf(p)) && !/anvil-guard/.test(commandOf(p)));
};
const commandOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
};

async function rpc(url: string, method: string): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
    signal: AbortSignal.timeout(10_000),
  });
  return ((await res.json()) as { result: unknown }).result;
}

test('starts, answers on both interfaces, and stop() ends the child and its anvil', async () => {
  const before = Date.now();
  const ref = await startReferenceProcess({ profile: 'public', blockTimeMs: 1000, flashblockMs: 100 });
  const tree = [ref.pid, ...descendants(ref.pid)];
  try {
    expect(ref).toMatchObject({ profile: 'public', blockTimeMs: 1000, flashblockMs: 100 });
    // Where its seals fall: from its clock's start, during the start-up just awaited.
    expect(ref.sealGrid).toEqual({ atMs: expect.any(Number), everyMs: 1000 });
    expect(ref.sealGrid!.atMs).toBeGreaterThanOrEqual(before);
    expect(ref.sealGrid!.atMs).toBeLessThanOrEqual(Date.now());
    expect(anvilAmong(tree)).toHaveLength(1);
    expect(await rpc(ref.rpcUrl, 'eth_chainId')).toBe('0x7a69');
    const list = await fetch(`${ref.baseUrl}/v1/tokenized-stocks`, { signal: AbortSignal.timeout(10_000) });
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await list.text()).toMatch(/"isin"/i);
  } finally {
    await ref.stop();
  }
  expect(await gone(tree, 10_000)).toEqual([]);
  await ref.stop(); // again: nothing to do
}, 60_000);

describe('started early (before the suite loads its modules)', () => {
  /** The reference children of this process, as the process table has them now. */
  const referenceChildren = () => descendants(process.pid).filter((p) => /reference\/main\.ts/.test(commandOf(p)));
  /**
   * One reference child found, as expected; else what `expect` shows: every child of this process
   * with its state and command (once, with a core kept busy, none was found right after the start).
   */
  const oneFound = (found: number[]) => {
    if (found.length === 1) return { found: 1 };
    // Read after `found` was: a child that showed up since is listed too, which says as much.
    const table = processTable();
    return { found: found.length, children: descendants(process.pid).map((p) => `${p} ${table.get(p)?.state ?? 'gone'} ${commandOf(p).slice(0, 200)}`) };
  };

  test('a run with the same options takes that child instead of starting another', async () => {
    startEarly({ profile: 'dedicated', blockTimeMs: 1000 });
    const early = referenceChildren();
    expect(oneFound(early)).toEqual({ found: 1 });
    const ref = await takeOrStart({ profile: 'dedicated', blockTimeMs: 1000 });
    try {
      expect(ref.pid).toBe(early[0]);
      expect(referenceChildren()).toEqual(early);
    } finally {
      await ref.stop();
    }
    expect(await gone(early, 10_000)).toEqual([]);
  }, 60_000);

  test('a child no run took is stopped by discardEarly (a run that ended before opening its target), still starting', async () => {
    startEarly({ profile: 'dedicated' });
    const early = referenceChildren();
    expect(oneFound(early)).toEqual({ found: 1 });
    await discardEarly(); // at once: its start is aborted, not waited for
    expect(await gone(early, 10_000)).toEqual([]);
    await discardEarly(); // nothing left to stop
  }, 60_000);

  test('… and up, with its anvil', async () => {
    startEarly({ profile: 'dedicated' });
    const early = referenceChildren();
    const deadline = Date.now() + 30_000;
    while (anvilAmong(descendants(early[0])).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const tree = [...early, ...descendants(early[0])];
    expect(anvilAmong(tree)).toHaveLength(1);
    await discardEarly();
    expect(await gone(tree, 10_000)).toEqual([]);
  }, 60_000);
});

describe("the JSON line's seal grid (sealGridAtMs), used only to schedule", () => {
  const hello = (extra: Record<string, unknown>) =>
    JSON.stringify({
      baseUrl: 'http://127.0.0.1:1',
      rpcUrl: 'http://127.0.0.1:2',
      profile: 'dedicated',
      blockTimeMs: 1200,
      flashblockMs: 200,
      signerKey: `0x${'ab'.repeat(32)}`,
      ...extra,
    });
  const child = (line: string): Launch => ({
    execPath: process.execPath,
    args: ['-e', `process.stdout.write(${JSON.stringify(`${line}\n`)}); setInterval(() => {}, 1000)`],
    startTimeoutMs: 20_000,
    stopTimeoutMs: 2_000,
  });

  test.each([
    ['absent', {}, undefined],
    ['an epoch time', { sealGridAtMs: 1_795_000_000_000 }, { atMs: 1_795_000_000_000, everyMs: 1200 }],
    ['negative', { sealGridAtMs: -5 }, undefined],
    ['not a whole number', { sealGridAtMs: 1.5 }, undefined],
    ['a string', { sealGridAtMs: '1795000000000' }, undefined],
  ])('%s: the child starts, with that grid or none', async (_, extra, grid) => {
    const ref = await startReferenceProcess({ profile: 'dedicated' }, child(hello(extra)));
    try {
      expect(ref.sealGrid).toEqual(grid);
      expect(ref.blockTimeMs).toBe(1200);
    } finally {
      await ref.stop();
    }
  });
});

describe('a child that does not start', () => {
  const node = (script: string, startTimeoutMs = 20_000): Launch => ({
    execPath: process.execPath,
    args: ['-e', script],
    startTimeoutMs,
    stopTimeoutMs: 2_000,
  });

  test('exits early: the error gives its exit and the tail of its stderr', async () => {
    const err = await startReferenceProcess(
      { profile: 'dedicated' },
      node(`process.stderr.write('x'.repeat(10000) + 'anvil: not found\\n'); process.exit(3)`),
    ).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^it exited \(code 3\) before saying where it listens; its last words: x+anvil: not found$/);
    expect((err as Error).message.length).toBeLessThan(2200); // a bounded tail, not all it wrote
  });

  test('prints something else than its JSON line: a clear error, and the child is stopped', async () => {
    const pidFile = path.join(tmpdir(), `refproc-garbage-${process.pid}`);
    const err = await startReferenceProcess(
      { profile: 'dedicated' },
      node(`require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); console.log('listening on 8545'); setInterval(() => {}, 1000)`),
    ).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/^it did not answer with its JSON line: "listening on 8545" \(it wrote nothing on stderr\)$/);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(await gone([pid], 5_000)).toEqual([]);
  });

  test('says nothing: a time-out, and the child is stopped (SIGKILL when SIGTERM is ignored)', async () => {
    const pidFile = path.join(tmpdir(), `refproc-silent-${process.pid}`);
    const err = await startReferenceProcess(
      { profile: 'dedicated' },
      node(`require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)`, 500),
    ).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/^it did not say where it listens within 500 ms/);
    expect(await gone([Number(readFileSync(pidFile, 'utf8'))], 5_000)).toEqual([]);
  });

  test('cannot be run at all', async () => {
    const err = await startReferenceProcess({ profile: 'dedicated' }, { ...node(''), execPath: '/nonexistent/node' }).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/^it could not be run: spawn \/nonexistent\/node ENOENT/);
  });
});

test('the child runs the source through tsx here (and the build from dist/)', () => {
  const { args } = defaultLaunch({ profile: 'dedicated', blockTimeMs: 500 });
  expect(args).toEqual(expect.arrayContaining([path.join(ROOT, 'src/reference/main.ts'), '--json', '--stop-with-stdin', '--block-time', '500']));
  expect(args.slice(0, 2)).toEqual(['--require', require.resolve('tsx/cjs')]);
});

test('a parent killed outright (SIGKILL) takes the child and its anvil with it', async () => {
  // The parent: this module, from source, holding a started child and never stopping it.
  const script = `
    require(${JSON.stringify(path.join(ROOT, 'src/cli/reference-process.ts'))})
      .startReferenceProcess({ profile: 'dedicated' })
      .then((ref) => process.stdout.write(JSON.stringify({ pid: ref.pid }) + '\\n'), (err) => (console.error(err), process.exit(1)));
    setInterval(() => {}, 1000);
  `;
  const parent = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let tree: number[] = [];
  try {
    const pid = await new Promise<number>((resolve, reject) => {
      let out = '';
      let err = '';
      const timer = setTimeout(() => reject(new Error(`no child within 60 s: ${err}`)), 60_000);
      parent.stderr.on('data', (d) => (err += d));
      parent.stdout.on('data', (d) => {
        out += d;
        if (!out.includes('\n')) return;
        clearTimeout(timer);
        resolve(JSON.parse(out).pid);
      });
      parent.once('exit', (code) => (clearTimeout(timer), reject(new Error(`parent exited ${code}: ${err}`))));
    });
    tree = [pid, ...descendants(pid)];
    expect(anvilAmong(tree)).toHaveLength(1);
    parent.kill('SIGKILL');
    expect(await gone(tree, 15_000)).toEqual([]);
  } finally {
    killAll([parent.pid, ...tree]);
  }
}, 90_000);

test("a terminal's Ctrl-C (SIGINT to the run's process group) reaches the suite alone: the reference answers until the reports are written", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctrl-c-'));
  // Its own process group, as a shell gives a foreground job; the group is what the terminal signals.
  const run = spawn(process.execPath, [path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'src/cli/run.ts'), '--report-dir', dir, '--concurrency', '4'], {
    cwd: dir,
    detached: true,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let tree: number[] = [];
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the run did not end within 90 s\n${out}`)), 90_000);
      run.stdout.on('data', (d) => {
        out += d;
        // Several checks in flight: what a reference stopped by the same Ctrl-C would make fail.
        if (!tree.length && /\[\s*20\//.test(out)) {
          tree = [run.pid!, ...descendants(run.pid!)];
          process.kill(-run.pid!, 'SIGINT');
        }
      });
      run.once('exit', (c) => (clearTimeout(timer), resolve(c)));
    });
    expect(tree.length).toBeGreaterThan(0);
    expect(code).toBe(130);
    const doc = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8'));
    expect(doc.interrupted).toMatch(/interrupted by SIGINT/);
    expect(doc.counts.failed).toBe(0);
    // Checks in flight when the signal came end as stopped by it, never as a target that went away
    // ("got no HTTP answer"), which is what they would record had the Ctrl-C stopped the reference too.
    const unjudged = doc.checks.filter((c: { status: string }) => c.status !== 'passed' && c.status !== 'skipped');
    expect(unjudged.length).toBeGreaterThan(0);
    expect(unjudged.filter((c: { cause?: string }) => c.cause !== 'stopped').map((c: { id: string; reason?: string }) => `${c.id}: ${c.reason}`)).toEqual([]);
    expect(await gone(tree, 10_000)).toEqual([]);
  } finally {
    killAll([run.pid, ...tree]);
  }
}, 120_000);
