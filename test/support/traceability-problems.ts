// The traceability lint only a test runs (test/unit/traceability.test.ts): every way specs/rules.yaml
// and the checks' citations disagree. Kept out of src/ so dist/ does not ship it.
import { citedBy, type Citing } from '../../src/cli/traceability';
import { statementTexts, type Spec, type Statement } from '../../src/harness/spec-rules';

/** A statement a check can judge directly: neither untestable nor delegated to other entries. */
export function isDirect(s: Statement): boolean {
  return !s.untestable && !s.via;
}

/** Statement (or row) id → the checks citing it, in check order. */
export function statementsCitedBy(checks: Citing[]): Map<string, Citing[]> {
  const out = new Map<string, Citing[]>();
  for (const c of checks) for (const id of c.statements) out.set(id, [...(out.get(id) ?? []), c]);
  return out;
}

/** Every way the spec and the checks' citations disagree; empty when they agree. */
export function traceabilityProblems(spec: Spec, checks: Citing[]): string[] {
  const problems: string[] = [];
  const entries = new Map(spec.sections.map((e) => [e.id, e]));
  const statements = new Map(spec.sections.flatMap((e) => e.statements.map((s) => [s.id, s] as const)));
  const texts = statementTexts(spec);
  const cited = citedBy(checks);
  const citedStatements = statementsCitedBy(checks);
  if (entries.size !== spec.sections.length) problems.push('rules.yaml: entry ids are not unique');
  for (const [id, by] of citedStatements) {
    const s = statements.get(id);
    const who = by.map((c) => c.id).join(', ');
    if (!texts.has(id)) problems.push(`${who} cite(s) ${id}, which specs/rules.yaml does not have`);
    else if (s && !isDirect(s))
      problems.push(`${who} cite(s) ${id}, which is not directly testable (${s.untestable ? 'untestable' : `enforced through ${s.via!.join(', ')}`})`);
  }
  for (const e of spec.sections) {
    for (const s of e.statements) {
      if (isDirect(s) && !citedStatements.has(s.id))
        problems.push(`${s.id} is testable but no check cites it (cite it, or mark it untestable with the reason)`);
      for (const v of s.via ?? []) {
        if (!entries.has(v)) problems.push(`${e.id}: via ${v}, which specs/rules.yaml does not have`);
        else if (!cited.has(v)) problems.push(`${e.id}: via ${v}, which no check cites`);
      }
    }
  }
  return problems;
}
