import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The package root, found by walking up from this file, so the same code reads schemas/ and
 * specs/ whether it runs from src/ (tsx, jest) or from the compiled dist/src/.
 */
function findRoot(from: string): string {
  let dir = from;
  for (let i = 0; i < 8; i++) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && existsSync(path.join(dir, 'schemas'))) return dir;
    dir = path.dirname(dir);
  }
  throw new Error(`cannot find the package root above ${from}`);
}

export const ROOT = findRoot(__dirname);
export const PKG = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
export const fromRoot = (...parts: string[]): string => parts.reduce((at, part) => path.join(at, part), ROOT);
