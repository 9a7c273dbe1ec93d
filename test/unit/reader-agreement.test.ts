/**
 * Readers of one results.json agree with its stored status and exit code: junit.xml and the jest
 * adapter, for checks blocked by a root (a failure that fails the run, or a known failure that
 * does not) and for checks not judged in a run that a failure made non-conformant.
 */
import { renderJunit } from '../../src/cli/reporters/junit';
import { jestOutcome } from '../../src/cli/jest/outcome';
import { readerDocument } from '../../src/verdict/reader';
import { checkResult, FULL_SCOPE, runDocument } from '../support/documents';

const root = checkResult('rpc.bad', 'failed', { violated: ['4.5.1'] });
const members = ['rpc.blocked1', 'rpc.blocked2'].map((id) => checkResult(id, 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.bad' }));
const errorsOf = (xml: string) => Number(/<testsuites [^>]*errors="(\d+)"/.exec(xml)![1]);
const failuresOf = (xml: string) => Number(/<testsuites [^>]*failures="(\d+)"/.exec(xml)![1]);

describe('a root listed as a known failure (--expectations): its blocked checks leave the run incomplete', () => {
  const doc = readerDocument(
    runDocument([checkResult('rpc.ok'), { ...root, expectation: { reason: 'ticket 12', outcome: 'expected-failure' } }, ...members], FULL_SCOPE),
  );

  it('the run is incomplete, exit 3 (as stored)', () => {
    expect([doc.status, doc.exitCode]).toEqual(['incomplete', 3]);
    expect(doc.checks.filter((c) => c.outcome === 'blocked').map((c) => c.effect)).toEqual(['incomplete', 'incomplete']);
  });

  it('junit.xml is not green: each blocked check is an <error>, as the jest adapter fails each', () => {
    const xml = renderJunit(doc);
    expect(failuresOf(xml) + errorsOf(xml)).toBeGreaterThan(0);
    expect(errorsOf(xml)).toBe(2);
    expect(xml).toContain('<error message="not judged: blocked by rpc.bad, which does not fail the run" type="inconclusive">');
    for (const c of doc.checks.filter((x) => x.outcome === 'blocked')) expect(jestOutcome(c, doc).kind).toBe('fail');
  });
});

describe('a root that fails the run: its blocked checks and any check not judged state the stored exit 1, never 3', () => {
  const throttled = checkResult('rpc.slow', 'inconclusive', { cause: 'throttled', interface: 'rpc', reason: 'HTTP 429 on every attempt' });
  const doc = readerDocument(runDocument([checkResult('rpc.ok'), root, ...members, throttled], FULL_SCOPE));

  it('the run is non-conformant, exit 1 (as stored)', () => {
    expect([doc.status, doc.exitCode]).toEqual(['non-conformant', 1]);
  });

  it('junit.xml: one red line for the root, its blocked checks skipped naming it', () => {
    const xml = renderJunit(doc);
    expect(failuresOf(xml)).toBe(1);
    expect(xml.match(/<skipped message="not judged: blocked by rpc.bad"\/>/g)).toHaveLength(2);
  });

  it('the jest adapter: a blocked check names its root and the run exits 1; a throttled one says exit 1 too', () => {
    for (const id of ['rpc.blocked1', 'rpc.blocked2']) {
      const o = jestOutcome(
        doc.checks.find((c) => c.id === id)!,
        doc,
      );
      expect(o.kind).toBe('fail');
      const message = (o as { message: string }).message;
      expect(message).toMatch(/^NOT JUDGED: blocked by rpc\.bad, which fails the run: the run is non-conformant \(the CLI exits 1\)/);
      expect(message).not.toMatch(/incomplete|exits 3/);
    }
    const slow = jestOutcome(
      doc.checks.find((c) => c.id === 'rpc.slow')!,
      doc,
    );
    expect((slow as { message: string }).message).toMatch(/^INCONCLUSIVE, not a verdict on the target: the run is non-conformant \(the CLI exits 1\)/);
  });
});
