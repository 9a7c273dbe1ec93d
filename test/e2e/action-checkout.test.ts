// The Action as `uses:` gets it: a checkout of the repository with no dist/. Its entry point
// (action/main.js, action.yml `runs.main`) builds the suite and the step (src/action/, TypeScript)
// with bin/build.js, then runs the step; the build is given no input, and a build that fails stops
// the step with one `::error` of fixed text and exit 2. node_modules is linked, not installed: the
// entry point runs `npm ci` only when it finds no TypeScript there.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
/** What a checkout holds that the build and a run read (the repository less its build, its packages and its reports). */
const LEFT_OUT = new Set(['node_modules', 'dist', '.dist-builds', '.git', 'reports', 'test']);

function checkout(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'action-checkout-'));
  cpSync(ROOT, dir, { recursive: true, filter: (from) => !LEFT_OUT.has(path.relative(ROOT, from).split(path.sep)[0]) });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

interface Ran {
  code: number | null;
  stdout: string;
  outputs: string;
}

/** `node action/main.js` in `dir` as the runner starts it, bounded in time. */
function runAction(dir: string, inputs: Record<string, string>): Promise<Ran> {
  const workspace = mkdtempSync(path.join(tmpdir(), 'action-workspace-'));
  const outputs = path.join(workspace, '.github-output');
  writeFileSync(outputs, '');
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', GITHUB_WORKSPACE: workspace, GITHUB_OUTPUT: outputs };
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(dir, 'action/main.js')], { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stdout += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the action did not finish in time\n${stdout.slice(-3000)}`));
    }, 150_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, outputs: readFileSync(outputs, 'utf8') });
    });
  });
}

describe('the Action from a checkout with no dist/', () => {
  it('builds the suite and its TypeScript step, then runs the step (here: refusing empty URLs, exit 2)', async () => {
    const dir = checkout();
    expect(existsSync(path.join(dir, 'dist'))).toBe(false);
    const r = await runAction(dir, { 'BASE-URL': '', 'RPC-URL': '' });
    expect(r.code).toBe(2);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`::group::Building the suite in ${dir}`);
    expect(lines).toContain('::endgroup::');
    expect(existsSync(path.join(dir, 'dist/src/action/main.js'))).toBe(true);
    expect(existsSync(path.join(dir, 'dist/src/cli/run.js'))).toBe(true);
    // The step's own verdict on the inputs, after the build: one annotation and the outputs.
    expect(lines.filter((l) => l.startsWith('::error'))).toEqual([
      '::error title=conformance::base-url and rpc-url are both empty (a missing secret?): give at least one',
    ]);
    expect(r.outputs).toMatch(/^status<<ghadelimiter_[\w-]+\nconfiguration-error\n/);
  }, 180_000);

  it('a build that fails: one ::error naming the step that failed, exit 2; the build saw no input', async () => {
    const dir = checkout();
    // A build that shows what it was given, then fails.
    writeFileSync(
      path.join(dir, 'bin/build.js'),
      "console.log('inputs seen: ' + Object.keys(process.env).filter((k) => k.startsWith('INPUT_')).join(',')); process.exit(3);\n",
    );
    const r = await runAction(dir, { 'BASE-URL': 'https://api.example/v1/key-tenant-secret-7f3a', 'SIGNER-KEY': `0x${'ab'.repeat(32)}` });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('inputs seen: \n');
    expect(r.stdout).not.toMatch(/key-tenant-secret-7f3a|abab/);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('::error'))).toEqual([
      `::error title=conformance::the build (bin/build.js) failed in ${dir}: exit 3`,
    ]);
    expect(existsSync(path.join(dir, 'dist/src/action/main.js'))).toBe(false);
  }, 60_000);

  it('a build that succeeds but leaves no step: one ::error naming the missing file, exit 2', async () => {
    const dir = checkout();
    writeFileSync(path.join(dir, 'bin/build.js'), 'process.exit(0);\n');
    const r = await runAction(dir, { 'BASE-URL': 'https://api.example' });
    expect(r.code).toBe(2);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('::error'))).toEqual(['::error title=conformance::the build left no dist/src/action/main.js']);
  }, 60_000);
});
