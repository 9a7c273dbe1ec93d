// One failure per cause in every output: junit.xml, results.json, summary.md and report.html count
// the same failures, and no check is both failed and listed as not judged because of it.
import { readerDocument } from '../../src/verdict/reader';
import { renderHtml } from '../../src/cli/reporters/html';
import { renderJunit } from '../../src/cli/reporters/junit';
import { renderSummary } from '../../src/cli/reporters/summary';
import type { RunDocument } from '../../src/verdict/document';
import { checkResult, FULL_SCOPE, runDocument } from '../support/documents';

/** What each output counts as failures, and the checks each lists as not judged because of a root. */
function counted(doc: RunDocument) {
  const junit = renderJunit(readerDocument(doc));
  const summary = renderSummary(readerDocument(doc));
  const html = renderHtml(readerDocument(doc));
  const failedIds = doc.checks.filter((c) => c.outcome === 'failed').map((c) => c.id);
  return {
    results: doc.counts.failed,
    junit: (junit.match(/<failure /g) ?? []).length,
    junitCases: (junit.match(/<testcase /g) ?? []).length,
    summary: Number(/## What fails the run \((\d+)\)/.exec(summary)?.[1] ?? 0),
    html: (html.match(/<div class="root">/g) ?? []).length,
    // A failed check is never among those a root covers (blocked, not judged because of it).
    failedAndCovered: failedIds.filter((id) => doc.rootCauses.some((r) => r.checks.includes(id))),
    summaryNotJudgedLines: summary.split('\n').filter((l) => /not judged because of it/.test(l) && failedIds.some((id) => l.includes(`\`${id}\``))),
  };
}

describe('an unreachable interface is one failure in every output', () => {
  const doc = runDocument(
    [
      checkResult('rpc.envelope.http-200', 'failed', {
        cause: 'unreachable',
        unreachable: 'rpc',
        statements: ['4.2.1'],
        violated: ['4.2.1'],
        reason: 'target unreachable: ECONNREFUSED',
      }),
      checkResult('rpc.b', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc', reason: 'blocked by target unreachable: rpc: ECONNREFUSED' }),
      checkResult('rpc.c', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc', reason: 'blocked by target unreachable: rpc: ECONNREFUSED' }),
      checkResult('rest.a', 'passed', { needs: ['rest'], statements: ['4.1.1'] }),
    ],
    FULL_SCOPE,
    { facts: { unreachable: { rpc: 'ECONNREFUSED' } } },
  );

  it('junit, results.json, summary.md and report.html each count 1; junit has one testcase per check', () => {
    const n = counted(doc);
    expect(n).toEqual({ results: 1, junit: 1, junitCases: 4, summary: 1, html: 1, failedAndCovered: [], summaryNotJudgedLines: [] });
    // The interface's root is stated by the check standing in, covering the others.
    expect(doc.rootCauses).toEqual([
      expect.objectContaining({
        id: 'target unreachable: rpc',
        check: 'rpc.envelope.http-200',
        interface: 'rpc',
        effect: 'fails-run',
        checks: ['rpc.b', 'rpc.c'],
      }),
    ]);
  });

  it('with no check standing in (every check of the interface blocked), the interface is one failure of its own', () => {
    const without = runDocument(
      [checkResult('rpc.b', 'inconclusive', { cause: 'unreachable', unreachable: 'rpc' }), checkResult('rest.a', 'passed', { needs: ['rest'] })],
      FULL_SCOPE,
      { facts: { unreachable: { rpc: 'ECONNREFUSED' } } },
    );
    const n = counted(without);
    expect({ junit: n.junit, summary: n.summary, failedAndCovered: n.failedAndCovered }).toEqual({ junit: 1, summary: 1, failedAndCovered: [] });
  });
});

describe('a failed root and the checks it blocked', () => {
  it('count one failure everywhere', () => {
    const doc = runDocument(
      [
        checkResult('rpc.getBlockReceipts.block.latest', 'failed', { statements: ['4.3.1'], violated: ['4.3.1'] }),
        checkResult('rpc.getBlockReceipts.block.pending', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.getBlockReceipts.block.latest' }),
        checkResult('rpc.getBlockReceipts.block.safe', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.getBlockReceipts.block.latest' }),
      ],
      FULL_SCOPE,
    );
    const n = counted(doc);
    expect({ results: n.results, junit: n.junit, summary: n.summary, html: n.html, failedAndCovered: n.failedAndCovered }).toEqual({
      results: 1,
      junit: 1,
      summary: 1,
      html: 1,
      failedAndCovered: [],
    });
  });
});
