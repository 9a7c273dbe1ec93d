import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../src/harness/paths';

/**
 * The repository stands alone: users get it as a clone with nothing beside it, so nothing may
 * read or link a path outside it (the spec once lived in a sibling checkout, and a clone without
 * it failed `npm test`).
 */

/** The tracked files as they are in the working tree (a tracked file deleted there is left out). */
function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 })
    .split('\0')
    .filter((f) => f && existsSync(path.join(ROOT, f)));
}

// A relative path climbing to a directory named "shared" (escaped and split so this file does not match itself).
const SIBLING = new RegExp(String.raw`(?:\.\./)+shared\b[\w./-]*`, 'g');

describe('the repository stands alone', () => {
  const files = trackedFiles();

  it('no tracked file refers to a "shared" directory outside the repository', () => {
    expect(files.length).toBeGreaterThan(50);
    const isTracked = (p: string): boolean => files.some((f) => f === p || f.startsWith(`${p}.`) || f.startsWith(`${p}/`));
    const outside: string[] = [];
    for (const f of files) {
      if (f === 'package-lock.json') continue;
      const text = readFileSync(path.join(ROOT, f), 'utf8');
      for (const m of text.matchAll(SIBLING)) {
        // A relative import of an in-repository module named shared (one level up) is fine.
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(f), m[0]));
        if (target.startsWith('..') || !isTracked(target)) outside.push(`${f}: ${m[0]}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('the pattern finds what it must', () => {
    const hits = (s: string): string[] => [...s.matchAll(SIBLING)].map((m) => m[0]);
    expect(hits(`path.resolve(ROOT, '${'..'}/shared/spec/x.md')`)).toEqual([`${'..'}/shared/spec/x.md`]);
    expect(hits(`[spec](${'..'}/${'..'}/shared/spec/x.md)`)).toEqual([`${'..'}/${'..'}/shared/spec/x.md`]);
    expect(hits(`from './shared'`)).toEqual([]);
  });

  it('a copy of the tracked files with no sibling directories passes the spec, traceability and schema tests', () => {
    const parent = mkdtempSync(path.join(os.tmpdir(), 'standalone-'));
    try {
      const copy = path.join(parent, 'repo');
      for (const f of files) {
        mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
        copyFileSync(path.join(ROOT, f), path.join(copy, f));
      }
      // Installed packages are not part of a clone but of `npm ci`; linking them saves the install.
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
      expect(existsSync(path.join(parent, 'shared'))).toBe(false);

      const tests = ['test/unit/traceability.test.ts', 'test/unit/specs.test.ts', 'test/unit/schemas.test.ts'];
      const run = spawnSync(process.execPath, [path.join(copy, 'node_modules/jest/bin/jest.js'), '--rootDir', copy, '--runInBand', '--ci', ...tests], {
        cwd: copy,
        encoding: 'utf8',
        timeout: 100_000,
        env: { ...process.env, FORCE_COLOR: '0' },
      });
      const output = `${run.stdout}\n${run.stderr}`;
      expect({ status: run.status, signal: run.signal, tail: run.status === 0 ? '' : output.slice(-4000) }).toEqual({ status: 0, signal: null, tail: '' });
      expect(output).toMatch(/Test Suites: 3 passed, 3 total/);
      // The tests ran from the copy, not from this checkout.
      expect(output).not.toContain(ROOT + path.sep);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  }, 120_000);
});
