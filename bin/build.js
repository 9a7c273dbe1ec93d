#!/usr/bin/env node
'use strict';
// Repository tool, not shipped: transpiles src/ and suites/ to dist/ (one CommonJS file per
// module), which the package's commands run (bin/start.js). `npm run build`; `prepack` runs it
// (npm pack, npm publish, and npm's packing of a git dependency).
// TypeScript's own transpiler, file by file with the project's compiler options: types are only
// stripped (type checking is `npm run typecheck` / `npm test`), and no native binary is needed,
// so `npm ci --omit=optional` (which drops esbuild's platform binary) still builds.
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

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

const { config, error } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, ROOT);
const compilerOptions = { ...options, noEmit: false, sourceMap: false, declaration: false };

fs.rmSync(DIST, { recursive: true, force: true });
for (const file of ['src', 'suites'].flatMap((d) => files(path.join(ROOT, d), /(?<!\.d)\.ts$/))) {
  const to = path.join(DIST, path.relative(ROOT, file)).replace(/\.ts$/, '.js');
  const { outputText } = ts.transpileModule(fs.readFileSync(file, 'utf8'), { compilerOptions, fileName: file, reportDiagnostics: false });
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.writeFileSync(to, outputText);
}
// JSON modules (compiled contract artifacts) are required at run time, not inlined.
for (const f of ['src', 'suites'].flatMap((d) => files(path.join(ROOT, d), /\.json$/))) {
  const to = path.join(DIST, path.relative(ROOT, f));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(f, to);
}
