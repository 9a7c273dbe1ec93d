// The gate never touches the verdict: a secret that spells a word of the suite's own vocabulary
// is refused before anything runs, and were one registered anyway (straight on the redactor), the
// status, outcome and exit code stay what the target earned. An unknown status never reads as a pass.
import http from 'node:http';
import { check } from '../../src/harness/check';
import { fail } from '../../src/harness/verdict';
import { Redactor } from '../../src/harness/redact';
import { runChecks } from '../../src/harness/runner';
import { ConfigError, loadConfig } from '../../src/cli/config';
import { decideOutcome, judge } from '../../src/cli/outcome';
import { buildRunDocument } from '../../src/cli/run-document';
import { validateRef } from '../../src/harness/schemas';
import { closeServer, listenLoopback } from '../support/loopback';
import { testCheckMeta, testRunEnv } from '../support/runs';

/** The values of the attack: each a piece of a status word, a field name or a JSON literal. */
const VOCABULARY_SECRETS = [
  'fail',
  'failed',
  'aile',
  'iled',
  'exitCode',
  'false',
  'passed',
  'conformant',
  'required',
  'outcome',
  'incomplete',
  'blocked',
  'null',
];

let server: http.Server;
let url: string;
beforeAll(async () => {
  server = http.createServer((req, res) => res.setHeader('content-type', 'application/json').end(`{"echo":"the target said failed and passed"}`));
  url = await listenLoopback(server);
});
afterAll(() => closeServer(server));

const messageFor = (secret: string) => {
  try {
    loadConfig(['--secret', secret], {});
  } catch (err) {
    return (err as Error).message;
  }
  return '';
};

describe('a --secret that spells the suite’s own words is refused at configuration', () => {
  it.each(VOCABULARY_SECRETS)('--secret %s: exit 2 (ConfigError) with the rule it breaks, never the value', (secret) => {
    let error: unknown;
    try {
      loadConfig(['--secret', secret], {});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/--secret \(or SECRETS\): .*(vocabulary|shorter than)/);
    // The same words whatever the value: the message never tells which word it was part of.
    expect((error as Error).message).toBe(messageFor('failed'));
  });

  it('SECRETS carrying one such value among good ones is refused too', () => {
    expect(() => loadConfig([], { SECRETS: 'long-enough-value,exitCode' })).toThrow(ConfigError);
  });

  it('a short run of digits (a number, date or time the reports hold) is refused; an ordinary secret is taken', () => {
    expect(() => loadConfig(['--secret', '2026'], {})).toThrow(/digits/);
    expect(loadConfig(['--secret', 'tenant-s3cret-value'], {}).secrets).toEqual(['tenant-s3cret-value']);
  });
});

describe('masking never reaches the verdict', () => {
  it('an unknown status fails closed: never passed', () => {
    for (const status of ['***', '***ed', '', 'PASSED'] as never[]) {
      expect(decideOutcome({ status, level: 'required' })).not.toBe('passed');
      expect(decideOutcome({ status, level: 'advisory' })).not.toBe('passed');
    }
  });

  it.each(VOCABULARY_SECRETS)(
    'registered straight on the redactor, %s changes no status or outcome of a failing check (its reason is masked)',
    async (secret) => {
      const redactor = new Redactor().add(secret);
      const checks = [
        check(testCheckMeta('bad'), async ({ rest }) => {
          const echoed = await rest.get('/v1/tokenized-stocks');
          fail(`the target answered ${JSON.stringify(echoed.json)}`, { violated: ['4.1.1'], expected: 'passed', actual: 'failed' });
        }),
      ];
      const [r] = await runChecks(checks, testRunEnv(url, { redactor }), { concurrency: 1 });
      expect(r).toMatchObject({ id: 'rest.test.bad', status: 'failed', level: 'required', cause: 'violation', violated: ['4.1.1'], statements: ['4.1.1'] });
      expect(judge(r).outcome).toBe('failed');
    },
  );

  it.each(VOCABULARY_SECRETS)('results.json built with %s registered: still non-conformant, exit 1, and valid against its schema', (secret) => {
    const redactor = new Redactor().add(secret);
    const cfg = loadConfig(['--base-url', 'http://127.0.0.1:1', '--rpc-url', 'http://127.0.0.1:1'], {});
    const failing = {
      ...testCheckMeta('bad'),
      section: '4.1',
      status: 'failed' as const,
      cause: 'violation' as const,
      reason: 'failed: passed',
      violated: ['4.1.1'],
      durationMs: 1,
      exchanges: [],
      exchangeCount: 0,
    };
    const passing = { ...testCheckMeta('good'), section: '4.1', status: 'passed' as const, reason: '', durationMs: 1, exchanges: [], exchangeCount: 0 };
    const doc = buildRunDocument(
      {
        suite: { name: 'tokenized-stocks-conformance', version: '0.0.0' },
        cfg,
        target: { baseUrl: cfg.baseUrl, rpcUrl: cfg.rpcUrl },
        startedAt: new Date(0),
        finishedAt: new Date(1),
        results: [failing, passing],
      },
      redactor,
    );
    expect([doc.status, doc.exitCode, doc.checks.map((c) => [c.status, c.outcome])]).toEqual([
      'non-conformant',
      1,
      [
        ['failed', 'failed'],
        ['passed', 'passed'],
      ],
    ]);
    expect(doc.checks[0].reason).not.toMatch(new RegExp(secret, 'i'));
    expect(validateRef('results.json', JSON.parse(JSON.stringify(doc))).errors).toEqual([]);
  });
});
