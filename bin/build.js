#!/usr/bin/env node
'use strict';
// Repository tool, not shipped: transpiles src/ and suites/ to dist/ (one CommonJS file per
// module), which the package's commands run (bin/start.js). `npm run build`; `prepack` runs it
// with --for-pack (npm pack, npm publish, and npm's packing of a git dependency).
// TypeScript's own transpiler, file by file with the project's compiler options: types are only
// stripped (type checking is `npm run typecheck` / `npm test`), and no native binary is needed,
// so `npm ci --omit=optional` (which drops esbuild's platform binary) still builds.
//
// A build never touches a build in use. A command started from dist/ loads its first module
// through dist/, and Node resolves it to its real path: every module it requires later (lazily,
// e.g. the reporters at the end of a run) comes from that same folder. So each build goes into a
// fresh folder of .dist-builds/, and dist/ is a symbolic link swapped to it by one rename(2), which
// on Linux replaces the link atomically: a command started at any moment finds a whole build
// (the old or the new), and one already running keeps its own. The newest KEEP builds stay (the
// current one and those before it, for the runs still using them); older ones are removed.
// npm pack does not follow a linked folder, so --for-pack makes dist/ a real folder instead (a
// rename too, just after the link is removed).
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const BUILDS = path.join(ROOT, '.dist-builds');
/** Builds kept: the current one and the two before it (a run started from one keeps loading it). */
const KEEP = 3;

function files(dir, ext) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p, ext));
    else if (ext.test(e.name)) out.push(p);
  }
  return out;
}

/** The manifest a build keeps of what it was made from: a later build reuses each output whose source is unchanged. */
const MANIFEST = '.build-sources.json';
const digest = (text) => require('node:crypto').createHash('sha256').update(text).digest('hex');

/**
 * The previous build's outputs by source path, when it was made by the same compiler with the same
 * options (a build made otherwise, or without a manifest, is reused for nothing).
 */
function previousOutputs(made) {
  const st = lstat(DIST);
  if (!st || !st.isSymbolicLink()) return new Map();
  const from = path.resolve(ROOT, fs.readlinkSync(DIST));
  try {
    const m = JSON.parse(fs.readFileSync(path.join(from, MANIFEST), 'utf8'));
    if (m.made !== made) return new Map();
    return new Map(Object.entries(m.sources).map(([rel, hash]) => [rel, { hash, at: path.join(from, rel).replace(/\.ts$/, '.js') }]));
  } catch {
    return new Map();
  }
}

/**
 * src/ and suites/ transpiled into `into` (a fresh folder), with the JSON modules beside them. A
 * source unchanged since the build dist/ names is copied from it (`reuse`; never for npm pack):
 * `npm test` builds every time, and most times nothing or one file changed.
 */
function transpileInto(into, reuse) {
  const tsconfig = fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8');
  // What else decides the output: the compiler, the project's options, and the options this script sets over them.
  const made = digest(`${require('typescript/package.json').version}\n${tsconfig}\n${fs.readFileSync(__filename, 'utf8')}`);
  const previous = reuse ? previousOutputs(made) : new Map();
  let compilerOptions;
  const transpile = (text, file) => {
    // typescript is loaded only when a file needs transpiling (loading it takes half a second).
    const ts = require('typescript');
    if (!compilerOptions) {
      const { config, error } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
      if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
      const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, ROOT);
      compilerOptions = { ...options, noEmit: false, sourceMap: false, declaration: false };
    }
    return ts.transpileModule(text, { compilerOptions, fileName: file, reportDiagnostics: false }).outputText;
  };
  const sources = {};
  for (const file of ['src', 'suites'].flatMap((d) => files(path.join(ROOT, d), /(?<!\.d)\.ts$/))) {
    const rel = path.relative(ROOT, file);
    const to = path.join(into, rel).replace(/\.ts$/, '.js');
    const text = fs.readFileSync(file, 'utf8');
    sources[rel] = digest(text);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    const before = previous.get(rel);
    if (before && before.hash === sources[rel] && lstat(before.at)?.isFile()) fs.copyFileSync(before.at, to);
    else fs.writeFileSync(to, transpile(text, file));
  }
  // JSON modules (compiled contract artifacts) are required at run time, not inlined.
  for (const f of ['src', 'suites'].flatMap((d) => files(path.join(ROOT, d), /\.json$/))) {
    const to = path.join(into, path.relative(ROOT, f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
  if (reuse) fs.writeFileSync(path.join(into, MANIFEST), JSON.stringify({ made, sources }));
}

/**
 * The YAML of specs/ parsed now, each kept as JSON named by the SHA-256 of its text: a run reads
 * that instead of loading the yaml package and parsing (src/harness/yaml-text.ts).
 */
function parseYamlInto(into) {
  const YAML = require('yaml');
  const dir = path.join(into, 'parsed-yaml');
  fs.mkdirSync(dir, { recursive: true });
  for (const f of files(path.join(ROOT, 'specs'), /\.ya?ml$/)) {
    const text = fs.readFileSync(f, 'utf8');
    fs.writeFileSync(path.join(dir, `${digest(text)}.json`), JSON.stringify(YAML.parse(text)));
  }
}

const lstat = (p) => fs.lstatSync(p, { throwIfNoEntry: false });

/** A dist/ that is a real folder (a packed build, or a checkout of an older layout) is kept as a build, so its runs go on. */
function keepRealDist(id) {
  const st = lstat(DIST);
  if (st && st.isDirectory()) fs.renameSync(DIST, path.join(BUILDS, `${id}-replaced`));
  else if (st && !st.isSymbolicLink()) throw new Error(`${DIST} is neither a folder nor a link: move it away`);
}

/** dist/ becomes a link to `build`, in one rename over the old link. */
function linkDist(build, id) {
  const link = path.join(ROOT, `.dist-link-${id}`);
  // A junction on Windows needs no privilege and an absolute target; elsewhere a relative link lets the checkout move.
  if (process.platform === 'win32') fs.symlinkSync(build, link, 'junction');
  else fs.symlinkSync(path.relative(ROOT, build), link);
  keepRealDist(id);
  fs.renameSync(link, DIST);
}

/** dist/ becomes `build` itself, a real folder, for npm pack. */
function moveToDist(build, id) {
  const st = lstat(DIST);
  if (st && st.isSymbolicLink()) fs.unlinkSync(DIST);
  else keepRealDist(id);
  fs.renameSync(build, DIST);
}

/** Every build but the newest KEEP (the one dist/ names among them) removed. */
function prune() {
  const current = lstat(DIST)?.isSymbolicLink() ? path.basename(fs.readlinkSync(DIST)) : undefined;
  const builds = fs
    .readdirSync(BUILDS)
    .filter((name) => name !== current)
    .sort()
    .reverse();
  for (const name of builds.slice(current ? KEEP - 1 : KEEP)) fs.rmSync(path.join(BUILDS, name), { recursive: true, force: true });
}

// The id sorts by time: the newest builds are the last names.
const id = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
const build = path.join(BUILDS, id);
fs.mkdirSync(build, { recursive: true });
try {
  transpileInto(build, !process.argv.includes('--for-pack'));
  parseYamlInto(build);
} catch (err) {
  fs.rmSync(build, { recursive: true, force: true });
  throw err;
}
if (process.argv.includes('--for-pack')) moveToDist(build, id);
else linkDist(build, id);
prune();
