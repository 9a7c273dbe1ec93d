// What the docs say the suite does with a behaviour of real deployments is what it does: a claim
// about revert code 3 (geth, reth, anvil) agrees with the fault catalogue, which runs it
// (test/faults/faults.test.ts: a faulty variant must fail a required check of its section).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { allChecks } from '../../suites';
import { VARIANTS } from '../faults/catalogue';
import { docFiles } from '../support/doc-blocks';

const ROOT = path.resolve(__dirname, '../..');
/** The clauses of the user-facing docs (README.md, CONTRIBUTING.md, docs/*.md): sentences, cut at `;` and dashes too. */
const clauses = docFiles().flatMap((file) =>
  readFileSync(path.join(ROOT, file), 'utf8')
    .replace(/\s*\n\s*/g, ' ')
    .split(/(?<=[.!?])\s+(?=[A-Z*`-])|;\s+|\s+—\s+/)
    .map((text) => ({ file, text })),
);
const aboutCode3 = (text: string) => /\b(?:revert code|code 3|answer 3)\b/i.test(text);

describe('the docs on revert code 3', () => {
  it('the fault catalogue judges it: a node answering a revert with code 3 is faulty', () => {
    expect(VARIANTS.find((v) => v.name === 'rpc.revert-code-3')?.kind).toBe('faulty');
  });

  it('no clause says such a node passes', () => {
    const passing = clauses.filter(({ text }) => aboutCode3(text) && /\b(?:pass|passes|must pass)\b/.test(text) && !/\bfails?\b/.test(text));
    expect(passing.map(({ file, text }) => `${file}: ${text}`)).toEqual([]);
  });

  it('README says which required checks it fails', () => {
    const claims = clauses.filter(({ file, text }) => file === 'README.md' && aboutCode3(text));
    const named = claims.flatMap(({ text }) => [...text.matchAll(/`(rpc\.[\w.-]+)`/g)].map((m) => m[1]));
    const required = new Set(
      allChecks()
        .filter((c) => c.level === 'required')
        .map((c) => c.id),
    );
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((id) => !required.has(id))).toEqual([]);
  });
});

describe('README on npm test', () => {
  const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\s*\n\s*/g, ' ');
  const said =
    /`npm test` builds `dist\/`, then runs the project's own tests .*? and type-checks beside them: about (\d+) test files, .*? It takes about (\d+) minutes/.exec(
      README,
    );

  it('says how long it takes and what it needs', () => {
    expect(said).not.toBeNull();
    for (const need of ['Linux x64', 'loopback', 'openssl', 'jq', 'Chromium']) expect(README).toMatch(new RegExp(`npm test\` builds.*${need}`));
  });

  it('counts the test files there are, within a tenth', () => {
    const count = (dir: string): number =>
      readdirSync(dir, { withFileTypes: true }).reduce(
        (n, e) => n + (e.isDirectory() ? count(path.join(dir, e.name)) : e.name.endsWith('.test.ts') ? 1 : 0),
        0,
      );
    const files = count(path.join(ROOT, 'test'));
    expect(Math.abs(files - Number(said![1]))).toBeLessThanOrEqual(files / 10);
  });
});
