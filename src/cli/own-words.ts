// The suite's own words beyond results.json's schema: every check id, title and statement id, the
// sections' titles, the headline, status reasons and scope phrases, the exit sentences, and the
// markup of junit.xml, report.html and the badge. The gate masks files as text, so a secret found
// in any of them would be masked there too: `rpc.` turned every JSON-RPC check id into `***getCode…`
// (results.json no longer valid against its schema), `4.2.r3` a statement id, `testcase` every test
// of junit.xml (a CI reader then saw no test at all), `exit 1` the exit line, `<span` the spans of
// report.html. They are not listed by hand: they are rendered, by the functions that write them,
// for a sample of runs, and a secret that would change any of those texts is refused before the
// run (main.ts and verify-certificate --live, garblesVocabulary).
import type { Check } from '../harness/check';
import type { CheckResult } from '../harness/runner';
import type { Cause, OutOfScope } from '../harness/verdict';
import { badgeOf, renderBadge } from './certificate/badge';
import { buildStatement } from './certificate/statement';
import { Redactor } from '../harness/redact';
import { renderHtml } from './reporters/html';
import { renderJunit } from './reporters/junit';
import { EXIT_SENTENCES, exitWords } from '../verdict/status';
import type { RunDocument } from '../verdict/document';
import { judge } from '../verdict/outcome';
import { buildRunDocument, type RunRecord } from '../verdict/build-document';
import { loadSpec } from '../harness/spec-rules';

/** Causes that leave a check unjudged, each worded in the status reasons. */
const UNJUDGED: readonly Cause[] = ['blocked', 'throttled', 'stopped', 'timeout', 'internal', 'limit', 'ambiguous', 'transport'];
/** Flags a check names when it leaves itself out, each worded in the scope. */
const LEFT_OUT: readonly OutOfScope[] = [
  { flag: '--archive', words: 'no --archive' },
  { flag: '--nav-max-age', words: 'no --nav-max-age' },
  { flag: '--openapi', words: 'no --openapi' },
];

type Kind = 'mixed' | 'passed' | 'unjudged' | 'skipped';

/** A result of `c` as a run of the given kind would hold it: no text from outside (empty reasons, no exchanges). */
function sampleResult(c: Check, i: number, kind: Kind): CheckResult {
  const { id, title, statements, section, level, needs } = c;
  const base = { id, title, statements, section, level, needs, reason: '', durationMs: 1, exchanges: [], exchangeCount: 0 };
  const pick = kind === 'mixed' ? i % 4 : kind === 'passed' ? 0 : kind === 'unjudged' ? 2 : 3;
  if (pick === 1) return { ...base, status: 'failed', cause: 'violation', violated: [c.statements[0]] };
  if (pick === 2) {
    const cause = UNJUDGED[i % UNJUDGED.length];
    return { ...base, status: 'inconclusive', cause, ...(cause === 'blocked' ? { blockedBy: c.id } : {}) };
  }
  if (pick === 3) return { ...base, status: 'skipped', cause: 'out-of-scope', outOfScope: LEFT_OUT[i % LEFT_OUT.length] };
  return { ...base, status: 'passed' };
}

/** A sample run of the catalogue, under the given settings: what results.json would state for it. */
function sampleDocument(catalogue: readonly Check[], kind: Kind, over: Partial<RunRecord> & { remote?: boolean; signer?: boolean } = {}): RunDocument {
  const { remote, signer, ...record } = over;
  return buildRunDocument(
    {
      suite: { name: 'tokenized-stocks-conformance', version: '0.0.0' },
      cfg: { only: new Set(['rest', 'rpc', 'cross', 'preconf']), profile: 'dedicated', embedded: !remote, expectationsFile: undefined },
      target: remote ? { baseUrl: 'http://127.0.0.1:1', rpcUrl: 'http://127.0.0.1:2', ...(signer ? { signerKey: '0x1' } : {}) } : {},
      startedAt: new Date(0),
      finishedAt: new Date(1),
      results: catalogue.map((c, i) => judge(sampleResult(c, i, kind))),
      ...record,
    } as RunRecord,
    new Redactor(),
  );
}

/** The tags and attribute names of a markup text as written (`<testcase`, `</table`, `name="`). */
function markupNames(xml: string): string[] {
  return [...new Set([...xml.matchAll(/<\/?[\w:.-]+|\s[\w:.-]+="/g)].map((m) => m[0].trim()))];
}

/**
 * The texts a run of this suite states in its own words (never a target's, never the user's),
 * for every kind of run: results.json as a whole (but the statements' prose), the badge, the
 * predicate's member names and constants, junit.xml's and report.html's markup, and the exit sentences.
 */
export function ownTexts(catalogue: readonly Check[]): string[] {
  const docs = [
    sampleDocument(catalogue, 'mixed', { remote: true, signer: true }),
    sampleDocument(catalogue, 'passed', { remote: true, signer: true }),
    sampleDocument(catalogue, 'passed', {
      remote: true,
      cfg: { only: new Set(['rest']), grep: /x/, profile: 'public', embedded: false, archive: true, require: 'full' },
    }),
    sampleDocument(catalogue, 'passed'),
    sampleDocument(catalogue, 'unjudged', { remote: true, signer: true }),
    sampleDocument(catalogue, 'skipped'),
    sampleDocument(catalogue, 'mixed', { stopped: { by: 'signal', reason: 'interrupted by SIGINT' } }),
    sampleDocument(catalogue, 'passed', { stopped: { by: 'deadline', reason: 'run deadline reached' } }),
    sampleDocument(catalogue, 'passed', { remote: true, unreachable: { rest: 'x', rpc: 'x' } }),
  ];
  const out = new Set<string>(Object.keys(EXIT_SENTENCES).map((code) => exitWords(Number(code))));
  for (const s of loadSpec().sections) out.add(`${s.id} ${s.title ?? ''}`);
  for (const [i, doc] of docs.entries()) {
    out.add(doc.headline);
    for (const r of doc.statusReasons) out.add(r);
    if (i > 0) continue;
    // The statements' prose is quoted from specs/, not a word a reader's tool matches on.
    out.add(JSON.stringify({ ...doc, statements: Object.keys(doc.statements ?? {}) }));
    for (const name of [...markupNames(renderJunit(doc)), ...markupNames(renderHtml(doc))]) out.add(name);
    out.add(JSON.stringify(buildStatement(doc, [])));
  }
  for (const doc of docs) for (const signed of [true, false]) out.add(renderBadge(badgeOf(doc), signed));
  return [...out];
}
