'use strict';
// Loads a module of this package: the compiled dist/ when it is at least as new as every source
// file (fast start-up, e.g. under npx), otherwise the TypeScript source through tsx (always fresh).
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const STAMP = path.join(ROOT, 'dist', '.build-stamp');
const SOURCES = ['src', 'suites'];

function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (/\.(ts|json)$/.test(entry.name)) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

function distIsFresh() {
  if (process.env.CONFORMANCE_FROM_SOURCE) return false;
  let stamp;
  try {
    stamp = fs.statSync(STAMP).mtimeMs;
  } catch {
    return false;
  }
  return SOURCES.every((d) => newestSource(path.join(ROOT, d)) <= stamp);
}

exports.load = function load(modulePath) {
  if (distIsFresh()) return require(path.join(ROOT, 'dist', `${modulePath}.js`));
  require('tsx/cjs/api').register();
  return require(path.join(ROOT, `${modulePath}.ts`));
};
