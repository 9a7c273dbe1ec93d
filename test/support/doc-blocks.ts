// The shell blocks of the user-facing docs (README.md, CONTRIBUTING.md, docs/*.md), each with the
// marker that says what it is: run by a test against the reference target, or illustrative.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

export interface DocBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The HTML comment just above the fence (blank lines aside), or undefined. */
  marker?: string;
  /** The block's commands: continuation lines joined, comments and blank lines dropped. */
  commands: string[];
}

export const RUN_MARKER = /^<!-- run by test\/e2e\/doc-commands\.test\.ts: (.+?) -->$/;
export const ILLUSTRATIVE_MARKER = /^<!-- illustrative: .+ -->$/;
/** A block of the relying party's recipe: test/unit/certify-recipe.test.ts runs it as written. */
export const RECIPE_MARKER = /^<!-- recipe: [\w-]+ \(run by test\/unit\/certify-recipe\.test\.ts\) -->$/;

export function docFiles(): string[] {
  return [
    'README.md',
    'CONTRIBUTING.md',
    ...readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
}

export function shellBlocks(file: string): DocBlock[] {
  const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*```(sh|bash|console|shell)\s*$/.test(lines[i])) continue;
    let j = i - 1;
    while (j >= 0 && !lines[j].trim()) j--;
    const above = j >= 0 ? lines[j].trim() : '';
    const end = lines.findIndex((l, k) => k > i && /^\s*```\s*$/.test(l));
    const body = lines.slice(i + 1, end < 0 ? lines.length : end);
    const commands: string[] = [];
    let pending = '';
    for (const raw of body) {
      const text = raw.trim();
      if (!pending && (!text || text.startsWith('#'))) continue;
      if (text.endsWith('\\')) pending += text.slice(0, -1) + ' ';
      else {
        commands.push(pending + text);
        pending = '';
      }
    }
    blocks.push({ file, line: i + 1, ...(above.startsWith('<!--') ? { marker: above } : {}), commands });
    i = end < 0 ? lines.length : end;
  }
  return blocks;
}
