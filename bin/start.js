'use strict';
// How the package's commands start:
//   - `conformance` / `conformance-reference` (this package's `bin`) run the prebuilt JavaScript
//     in dist/, made by `npm run build`, which `prepack` runs: a published or packed package
//     carries dist/ and runs no install script. (npm runs only `prepare` when it packs a git
//     dependency, so `npm install github:owner/repo` gets no dist/; the commands say so.)
//   - in a checkout without dist/ (`npm ci` does not build), the same commands run the TypeScript
//     source through tsx when it is installed (a development install), else say in one line to
//     run `npm run build`;
//   - `npm run conformance` / `npm run reference` inside the repository always run the source
//     through tsx (bin/run-ts.js), so an edit needs no build.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/**
 * The oldest Node.js the suite runs on is package.json's `engines.node` (">=20.3": every run uses
 * AbortSignal.any, new in 20.3). npm only warns about engines, so every command checks it here,
 * before anything else is loaded: an older Node is one line and exit 2, not a crash mid-run.
 * Written for any Node (no syntax or API newer than Node 12).
 */
function requireSupportedNode(versions = process.versions) {
  const wanted = /^>=\s*(\d+)(?:\.(\d+))?/.exec(String(require('../package.json').engines.node));
  const [major, minor] = String(versions.node).split('.').map(Number);
  const [needMajor, needMinor] = [Number(wanted[1]), Number(wanted[2] || 0)];
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return;
  // The command as typed: `npm run conformance` runs bin/run-ts.js, named by npm's script name.
  const name = process.env.npm_lifecycle_event || path.basename(process.argv[1] || 'conformance').replace(/\.js$/, '');
  process.stderr.write(
    `${name}: Node.js ${needMajor}.${needMinor} or later is needed, and this is Node.js ${versions.node} (${process.execPath}): install a current LTS release (e.g. \`nvm install --lts\`) and run it again\n`,
  );
  process.exit(2);
}
requireSupportedNode();

/**
 * Under npm (`npm run`, `npx`) a shell may sit between npm and this process; when npm is
 * signalled the shell dies without passing the signal on, and this process would be left
 * running with nobody to stop it. So when run by npm, the loss of the parent counts as a
 * SIGTERM (the process's own handlers then stop cleanly: reports written, anvil stopped).
 * Outside npm a changed parent is ordinary (`nohup`, a shell that exits), so nothing is watched.
 */
function stopWithParentUnderNpm(env = process.env) {
  if (!env.npm_lifecycle_event && !env.npm_command) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, 500);
  timer.unref();
}

/**
 * tsx's require hook when this is a development install (a checkout after `npm ci`), else
 * undefined. esbuild is tried once too: without its platform binary (`--omit=optional`) tsx
 * cannot transform anything, and that install must build dist/ instead.
 */
function tsxApi() {
  try {
    const api = require.resolve('tsx/cjs/api', { paths: [ROOT] });
    require(require.resolve('esbuild', { paths: [path.dirname(api)] })).transformSync('');
    return require(api);
  } catch {
    return undefined;
  }
}

/**
 * Runs a module of dist/ that starts the command when loaded; without dist/, its TypeScript source
 * through tsx when both are there, else one line and exit 2.
 */
function startBuilt(moduleInDist) {
  const file = path.join(ROOT, 'dist', `${moduleInDist}.js`);
  const source = path.join(ROOT, `${moduleInDist}.ts`);
  const tsx = fs.existsSync(file) || !fs.existsSync(source) ? undefined : tsxApi();
  if (!fs.existsSync(file) && !tsx) {
    const name = path.basename(process.argv[1] || 'conformance');
    const missing = path.relative(process.cwd(), file) || file;
    // No source either: an install without dist/, which is what npm makes of a git dependency.
    const fix = fs.existsSync(source)
      ? `run \`npm run build\` in ${ROOT} first`
      : 'install the packed tarball or the npm package instead of a git dependency (see docs/install.md in the repository)';
    process.stderr.write(`${name}: ${missing} is missing: ${fix}\n`);
    process.exit(2);
  }
  stopWithParentUnderNpm();
  if (tsx) tsx.register();
  require(tsx ? source : file);
}

module.exports = { ROOT, requireSupportedNode, startBuilt, stopWithParentUnderNpm };
