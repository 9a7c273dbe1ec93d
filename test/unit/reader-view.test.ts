// Readers (reports, the jest adapter, the certificate, compare, the Action) get the stored verdict
// without a check's raw status, level or cause: the compiler refuses a reader that would decide
// again. The `@ts-expect-error` lines below are the proof: `tsc --noEmit` fails if any of them
// compiles, that is, if the reader view ever carries the raw field again.
import { readerCheck, readerDocument, type ReaderCheck, type ReaderDocument } from '../../src/verdict/reader';
import { checkResult, FULL_SCOPE, judged, runDocument } from '../support/documents';

describe('the readers’ view of the verdict', () => {
  it('has no raw status, level or cause to read, by type', () => {
    const c: ReaderCheck = readerCheck(judged(checkResult('rpc.x', 'failed', { level: 'advisory', cause: 'violation' })));
    // @ts-expect-error a reader cannot read a check's raw status
    expect(c.status).toBeUndefined();
    // @ts-expect-error nor its raw level
    expect(c.level).toBeUndefined();
    // @ts-expect-error nor its raw cause
    expect(c.cause).toBeUndefined();
    // @ts-expect-error nor take them apart
    const { status, level, cause } = c;
    expect([status, level, cause]).toEqual([undefined, undefined, undefined]);
    // @ts-expect-error nor index them by name
    expect(c['status']).toBeUndefined();
    const d: ReaderDocument = readerDocument(runDocument([checkResult('rpc.y', 'passed')], FULL_SCOPE));
    // @ts-expect-error the document's checks are the view too
    expect(d.checks[0].status).toBeUndefined();
  });

  it('carries what was decided from them instead, and leaves the raw fields behind at run time', () => {
    const advisory = readerCheck(judged(checkResult('rpc.a', 'failed', { level: 'advisory', cause: 'violation' })));
    expect([advisory.outcome, advisory.required, advisory.notJudgedBecause]).toEqual(['warning', false, undefined]);
    const blocked = readerCheck(judged(checkResult('rpc.b', 'inconclusive', { cause: 'throttled' })));
    expect([blocked.outcome, blocked.required, blocked.notJudgedBecause]).toEqual(['not-judged', true, 'throttled']);
    // A level outside the vocabulary is required, as outcome.ts reads it (fails closed).
    expect(readerCheck(judged(checkResult('rpc.c', 'passed', { level: 'odd' as never }))).required).toBe(true);
    for (const key of ['status', 'level', 'cause']) expect(Object.keys(blocked)).not.toContain(key);
  });
});
