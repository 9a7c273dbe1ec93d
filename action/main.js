'use strict';
// The GitHub Action's entry point (action.yml, `runs.main`): the step itself is TypeScript
// (src/action/), built with the suite into dist/ by bin/build.js, as every command of the suite is.
// A checkout of the action (what `uses:` downloads) has no dist/; this file builds it in the
// action's own directory: `npm ci` from the lock file (no install script runs; the optional anvil
// is left out: the action always judges a remote target), then the transpile. Plain CommonJS with
// no dependency, so the runner can start it from that bare checkout.
// The build runs before any input is read, and is given none of them (no INPUT_* variable): its
// output, which reaches the log before the step registers its `::add-mask::` lines, cannot carry
// one. A failed build stops the step with one `::error` of fixed text, exit 2.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ACTION_DIR = path.resolve(__dirname, '..');
const STEP = path.join(ACTION_DIR, 'dist', 'src', 'action', 'main.js');
const SUITE = path.join(ACTION_DIR, 'dist', 'src', 'cli', 'run.js');
const INSTALL_TIMEOUT_MS = 10 * 60_000;

/** npm next to the running node when it ships one, else the one on PATH. */
function npmCommand() {
  const beside = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
  return fs.existsSync(beside) ? [process.execPath, beside] : ['npm'];
}

/** Run one command of the build in the action's directory; its failure in fixed words (never an input's value). */
function sh(argv, what) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('INPUT_')));
  const { error, status: code } = spawnSync(argv[0], argv.slice(1), {
    cwd: ACTION_DIR,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: INSTALL_TIMEOUT_MS,
  });
  if (error || code !== 0) throw new Error(`${what} failed in ${ACTION_DIR}: ${error ? error.message : `exit ${code}`}`);
}

function ensureBuilt() {
  if (fs.existsSync(STEP) && fs.existsSync(SUITE)) return;
  process.stdout.write(`::group::Building the suite in ${ACTION_DIR}${os.EOL}`);
  try {
    if (!fs.existsSync(path.join(ACTION_DIR, 'node_modules', 'typescript'))) {
      sh([...npmCommand(), 'ci', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund'], 'npm ci');
    }
    sh([process.execPath, path.join(ACTION_DIR, 'bin', 'build.js')], 'the build (bin/build.js)');
    for (const file of [STEP, SUITE]) if (!fs.existsSync(file)) throw new Error(`the build left no ${path.relative(ACTION_DIR, file)}`);
  } finally {
    process.stdout.write(`::endgroup::${os.EOL}`);
  }
}

let built = false;
try {
  ensureBuilt();
  built = true;
} catch (err) {
  process.stdout.write(`::error title=conformance::${String(err.message).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}${os.EOL}`);
  process.exitCode = 2;
}
if (built) require(STEP).runStep();
