/**
 * The project's import graph, read from the source text: every relative `import`, `export …
 * from`, `import type`, `require()` and `import()` of the TypeScript files under the given roots.
 * Used by the structure tests to keep dependencies one-way (no cycle; each folder imports only
 * what it may). No compiler involved: the specifiers are plain string literals in this codebase.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Module file (relative to root, with extension) -> the module files it imports. */
export type ImportGraph = Map<string, string[]>;

const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?\sfrom\s+['"]([^'"]+)['"]|(?:^|[\s;(=])import\s+['"]([^'"]+)['"]|\brequire\(\s*['"]([^'"]+)['"]\s*\)|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : tsFiles(p);
    return /\.ts$/.test(e.name) && !/\.d\.ts$/.test(e.name) ? [p] : [];
  });
}

/** Relative specifiers of one source text (comments are not stripped: none quote an import). */
export function specifiersOf(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(SPECIFIER)) {
    const s = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (s.startsWith('.')) out.push(s);
  }
  return out;
}

function resolve(fromFile: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), spec);
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile() && candidate.endsWith('.ts')) return candidate;
  }
  return undefined;
}

/** The graph of the TypeScript files under `roots` (folders relative to `root`). */
export function importGraph(root: string, roots: string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of roots.flatMap((r) => tsFiles(path.join(root, r)))) {
    const targets = specifiersOf(readFileSync(file, 'utf8'))
      .map((s) => resolve(file, s))
      .filter((t): t is string => t !== undefined)
      .map((t) => path.relative(root, t));
    graph.set(path.relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle, as its strongly connected component (Tarjan); a self-import counts. */
export function cyclesOf(graph: ImportGraph): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return cycles;
}

/** Everything `from` reaches through imports (itself excluded unless on a cycle). */
export function reachable(graph: ImportGraph, from: string): Set<string> {
  const seen = new Set<string>();
  const todo = [...(graph.get(from) ?? [])];
  while (todo.length > 0) {
    const next = todo.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    todo.push(...(graph.get(next) ?? []));
  }
  return seen;
}
