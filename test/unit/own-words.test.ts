// A secret found in any text the suite writes in its own words — a check id, a statement id, the
// headline, an exit sentence, junit.xml's markup, the badge — would be masked there by the gate
// (which masks files as text): refused before the run, exit 2, whatever flag it came from. A
// credential that is nothing of the suite's still runs.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { allChecks } from '../../suites';
import { main } from '../../src/cli/main';
import { writeReports } from '../../src/cli/write-reports';
import { checkResult, FULL_SCOPE, runDocument } from '../support/documents';
import { ownTexts } from '../../src/cli/own-words';
import { garblesVocabulary } from '../../src/cli/secret-rules';
import { Redactor } from '../../src/harness/redact';
import { capture } from '../support/sink';

/**
 * Each was taken before, and garbled what the reports state: `rpc.` and `rest.` every check id of
 * results.json (invalid against its schema), `4.2.r3` a statement id (invalid too), `getCode` and
 * `status-200` check ids, `testcase` every test of junit.xml, `pre-confirmed` the headline,
 * `exit 1` and `1: non` the exit line, `<text` the badge's words, `<span` report.html's markup.
 */
const OWN_WORDS = ['<span', 'rpc.', 'rest.', 'getCode', 'status-200', '4.2.r3', 'testcase', 'pre-confirmed', 'exit 1', '1: non', '<text', 'conformance'];

const texts = () => ownTexts(allChecks());

describe('a secret within the suite’s own words is refused before the run', () => {
  it.each(OWN_WORDS)('%j would garble what the suite writes', (secret) => {
    expect(garblesVocabulary(new Redactor().add(secret), texts)).toBe(true);
  });

  it.each(['tenant-s3cret-value', 'q7Xw2kLm9PzR4tYb', 'tok-ABCDEF123456', 'mainnet', 'base-sepolia', 'admin'])(
    '%j is nothing of the suite’s: taken',
    (secret) => {
      expect(garblesVocabulary(new Redactor().add(secret), texts)).toBe(false);
    },
  );

  it('with no secret at all, nothing is rendered to try', () => {
    const ownTextsCalled = jest.fn(texts);
    expect(garblesVocabulary(new Redactor(), ownTextsCalled)).toBe(false);
    expect(ownTextsCalled).not.toHaveBeenCalled();
  });

  it.each<[string, string[], Record<string, string>]>([
    ['--secret rpc.', ['--secret', 'rpc.'], {}],
    ['SECRETS with testcase', [], { SECRETS: 'tenant-s3cret-value,testcase' }],
    ['a URL key that is a check id', ['--rpc-url', 'http://127.0.0.1:1/?apikey=rpc.getCode.block.latest', '--base-url', 'http://127.0.0.1:1'], {}],
    ['a bearer token that is the exit line', ['--rpc-url', 'http://127.0.0.1:1', '--rpc-header', 'Authorization: Bearer exit 1'], {}],
  ])('%s: exit 2 with the rule, never the value, and no report', async (_what, argv, env) => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'own-words-')), 'out');
    const out = capture();
    const err = capture();
    const code = await main([...argv, '--report-dir', dir], env, { out: out.stream, err: err.stream });
    expect(code).toBe(2);
    // The message itself leaves through the gate (a bearer `exit 1` masks its own word "exit").
    expect(err.text()).toMatch(/own vocabulary or text .*use a longer credential \(value not shown\)/);
    expect(existsSync(path.join(dir, 'results.json'))).toBe(false);
  });

  it('verify-certificate --live given such a credential: exit 2 before anything is verified or dialled', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'own-words-live-'));
    writeReports(runDocument([checkResult('rpc.envelope.http-200', 'passed')], FULL_SCOPE), dir, { certify: true });
    const out = capture();
    const err = capture();
    const argv = ['verify-certificate', dir, '--allow-self-reported', '--live', '--rpc-url', 'http://127.0.0.1:9/?apikey=conformant'];
    expect(await main(argv, {}, { out: out.stream, err: err.stream })).toBe(2);
    expect(err.text()).toMatch(/^conformance verify-certificate: a credential given .*own vocabulary or text/m);
    expect(out.text()).toBe('');
  });
});
