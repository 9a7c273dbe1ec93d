/**
 * A remote run never loads the embedded reference target (anvil, the gateway, the REST server):
 * those modules are for a run without URLs, and a user of the package may not have anvil at all.
 * A run without URLs loads them in a process of its own, never in the suite's.
 * Observed in a real process: which of src/reference/ the module loader actually loaded.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Runs main() in a fresh Node process and returns the src/reference modules it loaded. */
function referenceModulesLoaded(args: string[]): { exit: number; loaded: string[] } {
  const script = `
    require('tsx/cjs/api').register();
    const { Writable } = require('node:stream');
    const quiet = new Writable({ write: (_c, _e, cb) => cb() });
    require(${JSON.stringify(path.join(ROOT, 'src/cli/main.ts'))})
      .main(${JSON.stringify(args)}, {}, { out: quiet, err: quiet })
      .then((exit) => {
        const loaded = Object.keys(require.cache).filter((f) => f.includes('/src/reference/')).map((f) => f.slice(f.indexOf('/src/reference/') + 1));
        process.stdout.write(JSON.stringify({ exit, loaded }));
        process.exit(0);
      });
  `;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '' } });
  if (r.status !== 0) throw new Error(`child exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const reports = () => ['--report-dir', mkdtempSync(path.join(tmpdir(), 'lazy-'))];

test('a run against remote URLs loads none of the embedded reference modules', () => {
  const closed = 'http://127.0.0.1:1'; // nothing listens: the run ends quickly, unreachable
  const { exit, loaded } = referenceModulesLoaded(['--base-url', closed, '--rpc-url', closed, '--only', 'rest', ...reports()]);
  expect(exit).toBe(1);
  expect(loaded).toEqual([]);
});

test('a run without URLs judges the reference in a process of its own: this one loads only where anvil is', () => {
  const { exit, loaded } = referenceModulesLoaded(['--only', 'rest', ...reports()]);
  expect(exit).toBe(0); // the reference did run, and was judged
  expect(loaded).toEqual(['src/reference/anvil-binary.ts']);
});
