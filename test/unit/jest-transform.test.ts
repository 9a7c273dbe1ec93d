// scripts/jest-transform.js, jest's TypeScript transform: what it gives runs as TypeScript's
// CommonJS in dist/ does where a test can tell (strict mode; exports a test can spy on), also for
// a module whose own names make esbuild rename its helpers, and its cache key follows its inputs.
import path from 'node:path';
import { ROOT } from '../../src/harness/paths';

interface Transformer {
  process(source: string, filename: string): { code: string; map: string };
  getCacheKey(source: string, filename: string, options: { instrument: boolean }): string;
}
const transform = require(path.join(ROOT, 'scripts/jest-transform.js')) as Transformer;

/** The exports of `source` transformed and run as a CommonJS module. */
function load(source: string, filename = path.join(ROOT, 'one.ts')): Record<string, unknown> {
  const { code } = transform.process(source, filename);
  const module = { exports: {} as Record<string, unknown> };
  new Function('module', 'exports', 'require', code)(module, module.exports, require);
  return module.exports;
}

it('runs in strict mode: a plain call has no `this`, and writing to a frozen object throws', () => {
  const m = load(`
    export function self(this: unknown) { return this; }
    export function write() { const o = Object.freeze({ a: 1 }); (o as { a: number }).a = 2; }
  `);
  const self = m.self as () => unknown;
  expect(self()).toBeUndefined();
  expect(m.write as () => void).toThrow(TypeError);
});

it.each([
  ['no names of its own', 'export const value = 1;'],
  ['its own `desc`, `from` and `key`', 'const desc = 1; function from() { return 2; } const key = 3; export const value = desc + from() + key - 5;'],
])('keeps exports a test can spy on (%s)', (_what, source) => {
  const m = load(source);
  expect(m.value).toBe(1);
  const spy = jest.spyOn(m, 'value', 'get').mockReturnValue(7);
  expect(m.value).toBe(7);
  spy.mockRestore();
  expect(m.value).toBe(1);
});

it('a cache key per source, file and coverage instrumentation', () => {
  const key = (source: string, file: string, instrument: boolean) => transform.getCacheKey(source, file, { instrument });
  const keys = new Set([key('a', 'x.ts', false), key('b', 'x.ts', false), key('a', 'y.ts', false), key('a', 'x.ts', true)]);
  expect(keys.size).toBe(4);
  expect(key('a', 'x.ts', false)).toBe(key('a', 'x.ts', false));
});
