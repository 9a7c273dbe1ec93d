// `npm run build` (and `npm test`, which builds) in a checkout where a command runs from dist/: the
// build goes into a fresh folder and dist/ is switched to it at once (bin/build.js). A command
// started at any moment finds a whole build, and one already running keeps loading its own, even
// a module it requires only later (the reporters at the end of a run). Run on a copy of the
// checkout, so the builds here never touch the dist/ other tests use.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, appendFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const work = mkdtempSync(path.join(tmpdir(), 'build-swap-'));

function node(args: string[], stdin = false): { child: ReturnType<typeof spawn>; done: Promise<{ code: number | null; out: string }> } {
  const child = spawn(process.execPath, args, { cwd: work, stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const done = new Promise<{ code: number | null; out: string }>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('exit', (code) => (clearTimeout(timer), resolve({ code, out })));
  });
  return { child, done };
}

const build = async (...flags: string[]) => {
  const r = await node([path.join(work, 'bin/build.js'), ...flags]).done;
  if (r.code !== 0) throw new Error(`bin/build.js ${flags.join(' ')} exited ${r.code}: ${r.out}`);
};

/** What a fresh process loads from dist/ now: the value the second build marks hex.js with. */
const markSeenByNewProcess = async () =>
  (await node(['-e', `process.stdout.write(String(require(${JSON.stringify(path.join(work, 'dist/src/harness/hex.js'))}).BUILD_MARK))`]).done).out;

/**
 * The copy's first build: the checkout's own when dist/ links one with its manifest (`npm test`
 * has just built it), copied whole under its name, so the copy transpiles only what differs from
 * it (about 4 s of CPU saved; the pack build below still transpiles everything and is compared
 * with it); a build of its own otherwise.
 */
async function firstBuild(): Promise<void> {
  const linked = lstatSync(path.join(ROOT, 'dist'), { throwIfNoEntry: false })?.isSymbolicLink()
    ? path.resolve(ROOT, readlinkSync(path.join(ROOT, 'dist')))
    : undefined;
  if (!linked || !existsSync(path.join(linked, '.build-sources.json'))) return build();
  const name = path.basename(linked);
  cpSync(linked, path.join(work, '.dist-builds', name), { recursive: true });
  symlinkSync(path.join('.dist-builds', name), path.join(work, 'dist'));
}

beforeAll(async () => {
  for (const entry of ['bin', 'src', 'suites', 'schemas', 'specs', 'package.json', 'tsconfig.json'])
    cpSync(path.join(ROOT, entry), path.join(work, entry), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'));
  await firstBuild();
}, 240_000);

describe('a build while a command runs from dist/', () => {
  it('never leaves dist/ without a module, and the running command keeps loading its own build', async () => {
    // The running command: its first module loaded through dist/, as bin/start.js loads the CLI; a later one on demand.
    const probe = node(
      [
        '-e',
        `const first = require.resolve(${JSON.stringify(path.join(work, 'dist/src/harness/paths.js'))});
         require(first);
         process.stdout.write('started ' + first + '\\n');
         process.stdin.once('data', () => {
           const later = require('node:module').createRequire(first)('./hex');
           process.stdout.write('later: ' + String(later.BUILD_MARK) + '\\n');
           process.exit(0);
         });`,
      ],
      true,
    );
    const probeFirst = await new Promise<string>((resolve) => {
      let said = '';
      probe.child.stdout!.on('data', (d) => {
        said += d;
        const started = /^started (.+)$/m.exec(said);
        if (started) resolve(started[1]);
      });
    });

    // The next build differs (a marked module); two builds older than it are there, and the oldest is one too many.
    appendFileSync(path.join(work, 'src/harness/hex.ts'), "\nexport const BUILD_MARK = 'second';\n");
    for (const old of ['2000-01-01T00-00-00-000Z-1', '2000-01-02T00-00-00-000Z-2']) mkdirSync(path.join(work, '.dist-builds', old, 'src'), { recursive: true });
    let looks = 0;
    const missing = new Set<string>();
    const second = build();
    let building = true;
    void second.finally(() => (building = false));
    // As commands starting meanwhile would: the entry and a module loaded late must be there at every look.
    while (building) {
      for (const f of ['dist/src/cli/run.js', 'dist/src/harness/redact.js']) if (!existsSync(path.join(work, f))) missing.add(f);
      looks++;
      await new Promise((r) => setTimeout(r, 1));
    }
    await second;

    probe.child.stdin!.end('go\n');
    const { out } = await probe.done;
    expect(looks).toBeGreaterThan(50);
    expect([...missing]).toEqual([]);
    expect(out).toContain('later: undefined'); // the module of the build it started from, not of the new one
    expect(await markSeenByNewProcess()).toBe('second');
    // Kept: the new build and the two before it (the probe's, and one more); the oldest removed.
    const kept = readdirSync(path.join(work, '.dist-builds'));
    expect(kept).toHaveLength(3);
    expect(kept).toContain('2000-01-02T00-00-00-000Z-2');
    expect(kept).toContain(path.relative(path.join(work, '.dist-builds'), probeFirst).split(path.sep)[0]);
  }, 300_000);

  it('for npm pack (--for-pack), dist/ is a real folder with the build, since npm pack does not follow a link', async () => {
    const linked = path.resolve(work, readlinkSync(path.join(work, 'dist')));
    await build('--for-pack');
    expect(lstatSync(path.join(work, 'dist')).isDirectory()).toBe(true);
    expect(existsSync(path.join(work, 'dist/src/cli/run.js'))).toBe(true);
    expect(await markSeenByNewProcess()).toBe('second');
    // The pack build transpiles every file; the build before it reused the first build's outputs
    // for every source but the one marked: the same files, byte for byte.
    const contents = (dir: string) =>
      Object.fromEntries(
        readdirSync(dir, { recursive: true, encoding: 'utf8' })
          .filter((f) => /\.js(on)?$/.test(f) && !f.startsWith('.'))
          .sort()
          .map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]),
      );
    const packed = contents(path.join(work, 'dist'));
    expect(Object.keys(packed).length).toBeGreaterThan(100);
    expect(contents(linked)).toEqual(packed);
  }, 240_000);
});
