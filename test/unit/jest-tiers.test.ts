// `npm test`'s shape: the tests that keep a core busy run in a project of their own (one at a
// time, after the rest: scripts/jest-tiers.js), found by their import of test/support/busy-core.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import config, { busyCoreTests } from '../../jest.config';

const ROOT = path.join(__dirname, '../..');
type Project = { displayName?: unknown; testMatch?: string[]; testPathIgnorePatterns?: string[] };
const projects = (config.projects ?? []) as Project[];
const named = (name: string) => projects.find((p) => p.displayName === name)!;

it('finds every test file that keeps a core busy, and only those go to the busy-core project', () => {
  const busy = busyCoreTests();
  expect(busy.map((f) => path.relative(ROOT, f))).toEqual(
    expect.arrayContaining(['test/e2e/busy-runner.test.ts', 'test/faults/fleet-receipts-busy.test.ts', 'test/preconf/load.test.ts']),
  );
  for (const f of busy) expect(readFileSync(f, 'utf8')).toMatch(/support\/busy-core'/);
  // A file's quiet runs stay in the main project, beside the other worker: only the busy ones wait for the end.
  expect(busy.map((f) => path.relative(ROOT, f))).not.toContain('test/faults/fleet-receipts.test.ts');
  expect(named('busy-core').testMatch).toEqual(busy);
  const ignored = named('main').testPathIgnorePatterns!.map((p) => new RegExp(p));
  for (const f of busy) expect(ignored.some((re) => re.test(f))).toBe(true);
  expect(ignored.some((re) => re.test(path.join(ROOT, 'test/unit/jest-tiers.test.ts')))).toBe(false);
  // Longest first, also from a clean clone (test/durations.json): the sequencer is jest's.
  expect(config.testSequencer).toBe('<rootDir>/scripts/jest-sequencer.js');
});

it('npm test runs the main project, then the busy-core one in band, each bounded', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  // The type check (tsc) runs beside the main tier: --typecheck.
  expect(pkg.scripts.test).toMatch(/node scripts\/jest-tiers\.js --typecheck$/);
  const tiers = readFileSync(path.join(ROOT, 'scripts/jest-tiers.js'), 'utf8');
  expect(tiers).toMatch(/args: \['--selectProjects', 'main'\], limitS:[^\n]*\n\s*\{[^\n]*args: \['--selectProjects', 'busy-core', '--runInBand'\], limitS:/);
  // Both bounds together stay well inside CI's 5400 s, beside npm ci, lint and the pack check.
  const limits = [...tiers.matchAll(/limitS: limitS \?\? (\d+)/g)].map((m) => Number(m[1]));
  expect(limits).toHaveLength(2);
  expect(limits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2400);
});

it(".ci/run bounds every stage, and the bounds together stay under CI's own 5400 s", () => {
  const ci = readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
  const commands = ci.split('\n').filter((l) => /^\s*(stage|npm|bash) /.test(l) || /\bapt-get (update|install)/.test(l.replace(/"[^"]*"/g, '')));
  for (const line of commands) expect(line).toMatch(/^\s*stage \d+ |timeout \d+ /);
  const bounds = [...ci.matchAll(/(?:^stage|timeout) (\d+) /gm)].map((m) => Number(m[1]));
  expect(bounds.length).toBeGreaterThanOrEqual(6);
  // Each stage's `timeout --kill-after=30` may add its 30 s, and CI's checkout takes some of the 5400 s too.
  const killAfter = 30 * (ci.match(/^stage \d+ /gm) ?? []).length;
  expect(bounds.reduce((a, b) => a + b, 0) + killAfter).toBeLessThanOrEqual(5400 - 120);
});

/** The jest commands a dry run of jest-tiers printed (--dry-run), by tier. */
function printedTiers(stdout: string): Record<string, string[]> {
  return Object.fromEntries([...stdout.matchAll(/^jest-tiers: the ([\w-]+) tier would run: jest (.*)$/gm)].map((m) => [m[1], JSON.parse(m[2]) as string[]]));
}

describe('--typecheck: tsc runs beside the main tier, and a type error fails the run', () => {
  // The global types tsc needs, and no more: its standard library costs 2 s of CPU a check.
  const GLOBALS = ['Array<T>', 'Boolean', 'CallableFunction', 'Function', 'IArguments', 'NewableFunction', 'Number', 'Object', 'RegExp', 'String']
    .map((name) => `interface ${name} {}\n`)
    .join('');
  /** jest-tiers type-checking a project of one file, its tiers printed (a dry run), not run. */
  const tiersTypechecking = (source: string, args: string[] = ['no-test-file-is-named-this']) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'typecheck-'));
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [], noLib: true }, files: ['globals.d.ts', 'one.ts'] }),
    );
    writeFileSync(path.join(dir, 'globals.d.ts'), GLOBALS);
    writeFileSync(path.join(dir, 'one.ts'), source);
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/jest-tiers.js'), '--typecheck', '--dry-run', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, JEST_TIERS_TSCONFIG: path.join(dir, 'tsconfig.json') },
      timeout: 120_000,
    });
    return { status: r.status, said: `${r.stdout}${r.stderr}` };
  };

  it('types that check: exit 0', () => {
    const r = tiersTypechecking('export const n: number = 1;\n');
    expect(r).toMatchObject({ status: 0 });
    expect(r.said).not.toMatch(/type check/);
    expect(Object.keys(printedTiers(r.said))).toEqual(['main', 'busy-core']);
  }, 120_000);

  it('a type error: its tsc message, one line naming the type check, exit 1', () => {
    const r = tiersTypechecking("export const n: number = 'one';\n");
    expect(r.status).toBe(1);
    expect(r.said).toMatch(/one\.ts\(1,14\): error TS2322: Type 'string' is not assignable to type 'number'\./);
    expect(r.said).toMatch(/^jest-tiers: the type check \(tsc\) failed: exit 2$/m);
  }, 120_000);

  it('with --listTests (not a run: tsc first, then jest), a type error is the same line and exit 1, and no list', () => {
    const r = tiersTypechecking("export const n: number = 'one';\n", ['--listTests']);
    expect(r.status).toBe(1);
    expect(r.said).toMatch(/^jest-tiers: the type check \(tsc\) failed: exit 2$/m);
    expect(r.said).not.toMatch(/jest-tiers\.test\.ts/);
  }, 120_000);
});

it('the jests it starts read no shared v8-compile-cache: a torn one (another jest writing it) crashed V8 in CI', () => {
  // ts-node loads the TypeScript compiler through v8-compile-cache, one pair of files per jest
  // checkout in the cache folder, written by every jest at its exit without a lock. A torn write
  // read by another jest is what corrupt bytes in the middle of the blob reproduce, every time:
  // V8 dies deserializing it (exit 139, or "Fatal error ... unreachable code", nodejs/node#51555).
  const cache = mkdtempSync(path.join(tmpdir(), 'v8-compile-cache-'));
  const jestBin = path.join(ROOT, 'node_modules/jest/bin/jest.js');
  const { DISABLE_V8_COMPILE_CACHE: _, ...cached } = process.env;
  const env = { ...cached, V8_COMPILE_CACHE_CACHE_DIR: cache, TS_NODE_TRANSPILE_ONLY: 'true' };
  // A jest with the cache on fills it (as any jest the user starts by hand does) ...
  const fill = spawnSync(process.execPath, [jestBin, '--listTests', '-c', path.join(ROOT, 'jest.config.ts')], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(fill.status).toBe(0);
  const blobs = readdirSync(cache).filter((f) => f.endsWith('.BLOB'));
  expect(blobs.length).toBeGreaterThan(0);
  // ... and another tears it.
  for (const b of blobs) {
    const bytes = readFileSync(path.join(cache, b));
    for (let i = bytes.length >> 2; i < (bytes.length >> 2) + 4096 && i < bytes.length; i++) bytes[i] ^= 0x5a;
    writeFileSync(path.join(cache, b), bytes);
  }
  const listed = spawnSync(process.execPath, [path.join(ROOT, 'scripts/jest-tiers.js'), '--listTests'], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
  expect({ status: listed.status, signal: listed.signal, fatal: /Fatal error/.test(listed.stderr) }).toEqual({ status: 0, signal: null, fatal: false });
  expect(listed.stdout).toContain(path.join('test', 'unit', 'jest-tiers.test.ts'));
}, 120_000);

describe("the main tier's workers", () => {
  /** jest-tiers with a path filter no test matches; a dry run unless `run` (its tiers printed, not run). */
  const tiers = (args: string[], run = false) =>
    spawnSync(process.execPath, [path.join(ROOT, 'scripts/jest-tiers.js'), ...(run ? [] : ['--dry-run']), 'no-test-file-is-named-this', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
  const WORKER_FLAG = /^(-w|--maxWorkers|--max-workers|-i|--runInBand|--run-in-band)(=|$|\d)/;

  it('one per core, one more for every two cores idle at the start and another for every two wholly idle, while a GiB each is available, as it says and as it runs the main tier', () => {
    const r = tiers([]);
    expect(r.status).toBe(0);
    const said = /^jest-tiers: the main tier on (\d+) workers \((\d+) cores, (\d+\.\d) idle, (\d+\.\d) GiB available\)$/m.exec(r.stdout);
    expect(said).not.toBeNull();
    const [workers, cores, idle, gib] = [Number(said![1]), Number(said![2]), Number(said![3]), Number(said![4])];
    expect(cores).toBe(availableParallelism());
    // The figures are rounded to a tenth in the line: the count is within one step (two) of what they imply.
    const implied = cores + Math.max(0, Math.min(Math.floor((idle + 0.5) / 2) + Math.floor((idle + 0.1) / 2), Math.floor(gib) - cores));
    expect(Math.abs(workers - implied)).toBeLessThanOrEqual(2);
    expect(workers).toBeGreaterThanOrEqual(cores);
    expect(workers).toBeLessThanOrEqual(Math.max(cores, Math.min(2 * cores, Math.ceil(gib))));
    const run = printedTiers(r.stdout);
    expect(run.main.filter((a) => WORKER_FLAG.test(a))).toEqual([`--maxWorkers=${workers}`]);
    expect(run['busy-core'].filter((a) => WORKER_FLAG.test(a))).toEqual(['--runInBand']);
  }, 120_000);

  it('a machine with little memory gets only the extra workers that fit (a GiB each in all), never fewer than one per core', () => {
    // A machine as jest-tiers sees it, loaded before it: `cores` cores, `idle` of them idle
    // (/proc/stat's idle ticks growing by that share of its total), `gib` GiB available.
    const dir = mkdtempSync(path.join(tmpdir(), 'tiers-memory-'));
    const on = (cores: number, gib: number, idle: number) => {
      const preload = path.join(dir, `machine-${cores}-${gib}-${idle}.js`);
      writeFileSync(
        preload,
        `const os = require('node:os');
         const fs = require('node:fs');
         os.availableParallelism = () => ${cores};
         os.freemem = process.availableMemory = () => ${gib} * 2 ** 30;
         const read = fs.readFileSync;
         let ticks = 0;
         fs.readFileSync = function (file, ...rest) {
           if (file !== '/proc/stat') return read.call(this, file, ...rest);
           ticks += 1000;
           return 'cpu  ' + ticks * ${(cores - idle) / cores} + ' 0 0 ' + ticks * ${idle / cores} + ' 0 0 0 0 0 0\\n';
         };\n`,
      );
      const r = spawnSync(process.execPath, ['--require', preload, path.join(ROOT, 'scripts/jest-tiers.js'), '--dry-run', 'no-test-file-is-named-this'], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.status).toBe(0);
      const said = /^jest-tiers: the main tier on (\d+) workers \((\d+) cores, (\d+\.\d) idle, (\d+\.\d) GiB available\)$/m.exec(r.stdout);
      expect(said?.slice(2)).toEqual([`${cores}`, idle.toFixed(1), `${gib}.0`]);
      expect(printedTiers(r.stdout).main.filter((a) => WORKER_FLAG.test(a))).toEqual([`--maxWorkers=${said![1]}`]);
      return Number(said![1]);
    };
    // [cores, GiB available, cores idle, workers]: two more per two wholly idle cores (one per two
    // idle within half a core) while the total fits, one per core whatever the memory.
    const table: Array<[number, number, number, number]> = [
      [2, 64, 2, 4],
      [2, 4, 2, 4],
      [2, 3, 2, 3],
      [2, 2, 2, 2],
      [2, 1, 2, 2],
      [2, 64, 1.5, 3],
      [2, 64, 1, 2],
      [8, 64, 8, 16],
      [8, 64, 7, 14],
      [8, 10, 8, 10],
      [8, 4, 8, 8],
    ];
    expect(table.map(([cores, gib, idle]) => [cores, gib, idle, on(cores, gib, idle)])).toEqual(table);
  }, 120_000);

  it('a worker count the user gives is theirs: the main tier gets it, the busy-core tier stays one file at a time', () => {
    for (const given of [['-w', '1'], ['-w1'], ['--maxWorkers=1'], ['--max-workers', '1'], ['--runInBand'], ['--run-in-band']]) {
      const r = tiers(given);
      const run = printedTiers(r.stdout);
      expect({
        given,
        status: r.status,
        said: /the main tier on \d+ workers/.test(r.stdout),
        main: run.main?.slice(-given.length - 1),
        busy: run['busy-core']?.filter((a) => WORKER_FLAG.test(a) || a === '1'),
      }).toEqual({
        given,
        status: 0,
        said: false,
        main: ['no-test-file-is-named-this', ...given],
        busy: ['--runInBand'],
      });
    }
  }, 120_000);

  it('and jest takes both tiers so (run, not printed: the busy-core tier once failed on -w beside its own --runInBand)', () => {
    const r = tiers(['-w', '1'], true);
    expect({ status: r.status, said: `${r.stdout}${r.stderr}`.slice(-2000) }).toMatchObject({ status: 0 });
  }, 120_000);
});
