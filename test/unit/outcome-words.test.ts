/**
 * One outcome, one set of words: every report prints a check's stored outcome from OUTCOME_WORDS
 * (src/cli/reporters/outcome-words.ts). report.html and compare once said FAILED and "failed
 * (known)" where summary.md, junit.xml and the console said "failed" and "failed (expected)".
 */
import { readerCheck, readerDocument } from '../../src/verdict/reader';
import type { CheckResult } from '../../src/harness/runner';
import { renderHtml } from '../../src/cli/reporters/html';
import { renderJunit } from '../../src/cli/reporters/junit';
import { renderSummary } from '../../src/cli/reporters/summary';
import { OUTCOME_WORDS, verdictOf } from '../../src/cli/reporters/outcome-words';
import { judge, OUTCOMES } from '../../src/verdict/outcome';
import { checkResult, runDocument, FULL_SCOPE } from '../support/documents';

const listed = (id: string, status: CheckResult['status']) => judge(checkResult(id, status), { expectations: [{ id, reason: 'known bug' }] });

test('every outcome has its words, and a result with no fact beside it reads exactly those', () => {
  expect(Object.keys(OUTCOME_WORDS).sort()).toEqual([...OUTCOMES].sort());
  expect(verdictOf(readerCheck(judge(checkResult('rpc.a', 'failed'))))).toBe(OUTCOME_WORDS.failed);
  expect(verdictOf(readerCheck(listed('rpc.b', 'failed')))).toBe(OUTCOME_WORDS['known-failure']);
  expect(verdictOf(readerCheck(listed('rpc.c', 'passed')))).toBe(OUTCOME_WORDS['stale-expectation']);
  expect(verdictOf(readerCheck(judge(checkResult('rpc.d', 'failed', { level: 'advisory' }))))).toBe(OUTCOME_WORDS.warning);
  expect(verdictOf(readerCheck(judge(checkResult('rpc.e', 'inconclusive', { cause: 'throttled' }))))).toBe(OUTCOME_WORDS['not-judged']);
  // The facts a reader needs stand beside the words: what blocked it, what scope left it out.
  expect(verdictOf(readerCheck(judge(checkResult('rpc.f', 'inconclusive', { cause: 'blocked', blockedBy: 'rpc.a' }))))).toBe('not judged (blocked by rpc.a)');
  expect(
    verdictOf(readerCheck(judge(checkResult('rpc.g', 'skipped', { cause: 'out-of-scope', outOfScope: { flag: '--archive', words: 'no --archive' } })))),
  ).toBe('skipped (out of scope: no --archive)');
  // The check standing in for an unreachable interface names it, but it failed: never "not judged".
  const standIn = judge(checkResult('rpc.h', 'failed', { cause: 'unreachable', unreachable: 'rpc' }));
  expect(verdictOf(readerCheck(standIn))).toBe(OUTCOME_WORDS.failed);
});

test('summary.md, report.html and junit.xml print a known failure (and the last two a stale expectation) in the same words', () => {
  const doc = runDocument([checkResult('rpc.ok', 'passed'), listed('rpc.known', 'failed'), listed('rpc.fixed', 'passed')], FULL_SCOPE);
  for (const [name, text] of [
    ['summary.md', renderSummary(readerDocument(doc))],
    ['report.html', renderHtml(readerDocument(doc))],
    ['junit.xml', renderJunit(readerDocument(doc))],
  ]) {
    expect([name, text.includes(OUTCOME_WORDS['known-failure'])]).toEqual([name, true]);
    // summary.md lists a stale expectation in a section of its own, with its reason instead.
    if (name !== 'summary.md') expect([name, text.includes(OUTCOME_WORDS['stale-expectation'])]).toEqual([name, true]);
    for (const old of ['failed (expected)', 'UNEXPECTED: listed as a known failure']) expect([name, text.includes(old)]).toEqual([name, false]);
  }
});

test('report.html writes a failure as every other report does', () => {
  const html = renderHtml(readerDocument(runDocument([checkResult('rpc.broken', 'failed')], FULL_SCOPE)));
  expect(html).toContain(`<span class="st-failed">${OUTCOME_WORDS.failed}</span>`);
  expect(html).not.toContain('>FAILED<');
});
