'use strict';
// jest's TypeScript transform: esbuild (tsx's, which `npm run conformance` runs the source
// through) transpiles each file on its own, as tsconfig's isolatedModules allows; `npm test`
// type-checks once with tsc. ts-jest, which it replaced, cost 4.4 s of CPU more for each jest run
// on a cold cache (every child jest of the tests in a fresh clone): 6.9 s against 3.0 s for the
// conformance adapter's run.
const { createHash } = require('node:crypto');
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
// (jest.spyOn(module, 'name')) as it could under ts-jest.
// (esbuild renames `key` when the module has a `key` of its own.)
const EXPORT_GETTER = /(enumerable: !\(desc = __getOwnPropDesc\(from, \w+\)\) \|\| desc\.enumerable) \}/;
const CONFIGURABLE = '$1, configurable: true }';

function transform(source, filename) {
  const { code, map } = transformSync(source, { ...OPTIONS, sourcefile: filename });
  if (!code.includes('__copyProps(')) return { code, map };
  // Same length of lines before and after: the map still holds.
  if (!EXPORT_GETTER.test(code))
    throw new Error(`scripts/jest-transform.js: esbuild ${version} no longer writes exports as this transform expects (${filename})`);
  return { code: code.replace(EXPORT_GETTER, CONFIGURABLE), map };
}

module.exports = {
  process: transform,
  // What the output depends on: the source, its name (in the map), esbuild and this file, nothing of jest's configuration.
  getCacheKey(source, filename) {
    return createHash('sha256')
      .update(`${version}\0${JSON.stringify(OPTIONS)}\0${CONFIGURABLE}\0${filename}\0`)
      .update(source)
      .digest('hex');
  },
};
