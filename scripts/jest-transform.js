'use strict';
// jest's TypeScript transform: esbuild (tsx's, which `npm run conformance` runs the source
// through) transpiles each file on its own, as tsconfig's isolatedModules allows; `npm test`
// type-checks once with tsc. ts-jest, which it replaced, cost 4.4 s of CPU more for each jest run
// on a cold cache (every child jest of the tests in a fresh clone): 6.9 s against 3.0 s for the
// conformance adapter's run. What runs matches what TypeScript builds into dist/ in what a test
// can see: strict mode, and exports a test can spy on.
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { transformSync, version } = require('esbuild');

const OPTIONS = {
  loader: 'ts',
  format: 'cjs',
  platform: 'node',
  target: 'es2022',
  sourcemap: 'external',
  tsconfigRaw: { compilerOptions: { target: 'ES2022', useDefineForClassFields: true, esModuleInterop: true, isolatedModules: true } },
};

// esbuild exports a module's bindings as getters that cannot be redefined, where TypeScript's
// CommonJS assigns them: made configurable, so that a test can still spy on an export
// (jest.spyOn(module, 'name')). esbuild renames the helper's names when the module has its own.
const EXPORT_GETTER = /(enumerable: !\((\w+) = __getOwnPropDesc\(\w+, \w+\)\) \|\| \2\.enumerable) \}/;
const CONFIGURABLE = '$1, configurable: true }';

function transform(source, filename) {
  const out = transformSync(source, { ...OPTIONS, sourcefile: filename });
  if (out.code.includes('__copyProps(') && !EXPORT_GETTER.test(out.code))
    throw new Error(`scripts/jest-transform.js: esbuild ${version} no longer writes exports as this transform expects (${filename})`);
  // TypeScript's CommonJS is strict mode; esbuild's is not unless asked. Both edits stay on their
  // line, so the map still holds.
  return { code: `"use strict";${out.code.replace(EXPORT_GETTER, CONFIGURABLE)}`, map: out.map };
}

/** This file's own text: what it does to esbuild's output is part of every cached result. */
const SELF = readFileSync(__filename, 'utf8');

module.exports = {
  process: transform,
  // What the output depends on: the source, its name (in the map), esbuild and this file, and
  // whether jest instruments it for coverage (it caches the instrumented code); nothing else of
  // jest's configuration.
  getCacheKey(source, filename, { instrument }) {
    return createHash('sha256')
      .update(`${version}\0${SELF}\0${Boolean(instrument)}\0${filename}\0`)
      .update(source)
      .digest('hex');
  },
};
