import { readFileSync } from 'node:fs';
import { allChecks } from '../../suites';
import { README, readmeWithGenerated } from '../../src/cli/docs';
import { sectionsOf } from '../../src/harness/check';
import { checksOf, globToRegExp, loadRules, SPEC_FILE, specOutline } from '../../src/harness/traceability';

const spec = specOutline(readFileSync(SPEC_FILE, 'utf8'));
const rules = loadRules();
const checks = allChecks();

describe('spec outline parser', () => {
  it('finds the sections and numbered rules of the spec', () => {
    for (const s of ['1', '2.1', '2.5', '4.1', '4.6', '5', '7', '9', '1.4', '5.2', '9.1']) expect(spec.sections).toContain(s);
    expect(spec.rules).toEqual(expect.arrayContaining(['2.1 rule 2', '4.1 rule 2', '7 rule 2', '1.4', '5.1']));
  });
  it('globs match within and across segments, and nothing else', () => {
    expect(globToRegExp('rpc.*.block.pending').test('rpc.getCode.block.pending')).toBe(true);
    expect(globToRegExp('rpc.getCode.block.pending').test('rpcXgetCode.block.pending')).toBe(false);
  });
});

describe('rule traceability (specs/rules.yaml)', () => {
  it('covers every numbered rule and every section of the spec', () => {
    const ids = new Set(rules.map((r) => r.id));
    for (const r of spec.rules) expect(ids).toContain(r);
    const covered = new Set(rules.map((r) => r.id.split(' ')[0]));
    // A section with subsections is covered through them.
    const leaves = [...spec.sections].filter((s) => ![...spec.sections].some((t) => t.startsWith(`${s}.`)));
    expect(leaves.filter((s) => !covered.has(s))).toEqual([]);
  });

  it.each(rules.map((r) => [`${r.id}: ${r.rule}`, r] as const))('%s is enforced by a check or says why it cannot be', (_name, rule) => {
    expect(spec.sections).toContain(rule.id.split(' ')[0]);
    if (rule.untestable) {
      expect(rule.checks ?? []).toEqual([]);
      return;
    }
    expect(rule.checks?.length).toBeGreaterThan(0);
    for (const glob of rule.checks ?? []) expect({ glob, matches: checks.filter((c) => globToRegExp(glob).test(c.id)).length > 0 }).toEqual({ glob, matches: true });
  });

  it('every check is named by a rule and cites sections that exist', () => {
    const named = new Set(rules.flatMap((r) => checksOf(r, checks).map((c) => c.id)));
    expect(checks.filter((c) => !named.has(c.id)).map((c) => c.id)).toEqual([]);
    const bad = checks.flatMap((c) => sectionsOf(c.section).filter((s) => !spec.sections.has(s)).map((s) => `${c.id} cites ${s}`));
    expect(bad).toEqual([]);
  });

  it('the README shows the current matrix and flag table (run `npm run docs` after changing rules, checks or flags)', () => {
    const readme = readFileSync(README, 'utf8');
    expect(readme).toBe(readmeWithGenerated(readme));
  });
});
