/**
 * One jest test per selected check, named by its id, asserting the result the conformance run
 * (global-setup.ts) wrote to results.json: so `-t`, jest-junit and jest's GitHub Actions
 * reporter work on conformance results. No rule is judged here.
 */
import { readerDocument, type ReaderCheck, type ReaderDocument } from '../../verdict/reader';
import type { RunDocument } from '../../verdict/document';
import { existsSync, readFileSync } from 'node:fs';
import { allChecks } from '../../../suites';
import { loadConfig } from '../config';
import { selectChecks } from '../main';
import { RESULTS_ENV, STARTED_ENV } from './global-setup';
import { isFromThisRun, jestOutcome, runStatusTest } from './outcome';
import { Egress } from '../egress';
import { forTerminal } from '../inert-text';

// What this adapter hands jest (test names, messages, warnings) jest prints to the console and the
// CI log: it leaves through the run's gate as the CLI's console lines do, masked and made inert
// (target text in a failure is data: no escape sequence, no workflow command at a line start; the
// adapter has no colour of its own, so none passes).
let gate: Egress | undefined;
const gated = (text: string): string =>
  (gate ??= Egress.forRun([], process.env).registerConfig(loadConfig([], process.env))).pass(forTerminal(text), 'a jest message') ??
  '(withheld: it would still have carried a secret after masking)';

function results(): { byId: Map<string, ReaderCheck>; doc?: ReaderDocument } {
  // Without the config's globalSetup nothing ran: say how to run it instead of failing every test.
  if (!process.env[STARTED_ENV]) throw new Error('no conformance run: use npx jest -c jest.conformance.config.ts (its globalSetup runs the suite)');
  const file = process.env[RESULTS_ENV];
  if (!file) return { byId: new Map() }; // -t matched no check: nothing ran, and jest filters out every test
  if (!existsSync(file)) throw new Error(`the conformance run wrote no ${file} (see its output above)`);
  const doc = readerDocument(JSON.parse(readFileSync(file, 'utf8')) as RunDocument);
  if (!isFromThisRun(doc, Number(process.env[STARTED_ENV])))
    throw new Error(`${file} is from an earlier run (${doc.startedAt}): this run wrote none (see its output above)`);
  if (doc.interrupted) console.warn(gated(`the conformance run stopped early: ${doc.interrupted}; checks not finished are inconclusive`));
  return { byId: new Map(doc.checks.map((r) => [r.id, r])), doc };
}

const { byId, doc } = results();
const skipped: string[] = [];
// An incomplete or non-conformant run is a failing test of its own, named for the status, so jest's
// summary says what the exit code says even when every check's own test passed or was skipped.
const runStatus = doc && runStatusTest(doc);
if (runStatus)
  test(gated(runStatus.name), () => {
    const failure = new Error(gated(runStatus.message));
    failure.stack = failure.message;
    throw failure;
  });
// The same selection as the run (ONLY, GREP from the environment): names are known now, synchronously.
for (const c of selectChecks(allChecks(), loadConfig([], process.env))) {
  const r = byId.get(c.id);
  if (!r || !doc) {
    test(c.id, () => {
      throw new Error(`${c.id}: no result in results.json (the run did not reach it)`);
    });
    continue;
  }
  const outcome = jestOutcome(r, doc);
  if (outcome.kind === 'skip') {
    skipped.push(`${c.id}: ${outcome.reason}`);
    test.skip(c.id, () => undefined);
  } else {
    test(c.id, () => {
      if (outcome.kind === 'fail') {
        // The message is the whole story: no stack frame of this adapter beneath it.
        const failure = new Error(gated(outcome.message));
        failure.stack = failure.message;
        throw failure;
      }
      if (outcome.warning) console.warn(gated(outcome.warning));
    });
  }
}

afterAll(() => {
  if (skipped.length) console.info(gated(`skipped (not judged in this run's scope):\n${skipped.join('\n')}`));
});
