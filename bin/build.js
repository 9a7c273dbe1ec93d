#!/usr/bin/env node
'use strict';
// Repository tool, not shipped: transpiles src/ and suites/ to dist/ (one file per module,
// CommonJS), which the package's commands run (bin/start.js). `npm run build`; `prepare` runs it.
// Type checking is `npm run typecheck` / `npm test`; this step only strips types.
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');

function files(dir, ext) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p, ext));
    else if (ext.test(e.name)) out.push(p);
  }
  return out;
}

fs.rmSync(DIST, { recursive: true, force: true });
const sources = ['src', 'suites'].flatMap((d) => files(path.join(ROOT, d), /\.ts$/));
esbuild.buildSync({ entryPoints: sources, outdir: DIST, outbase: ROOT, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning' });
// JSON modules (compiled contract artifacts) are required at run time, not bundled.
for (const f of ['src', 'suites'].flatMap((d) => files(path.join(ROOT, d), /\.json$/))) {
  const to = path.join(DIST, path.relative(ROOT, f));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(f, to);
}

