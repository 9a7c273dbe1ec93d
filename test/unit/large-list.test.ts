/**
 * A long list is judged, not timed out: every REST check reaches a verdict about
 * the records (one bad record at the very end is found by the rules it breaks), the list is
 * fetched once for all of them, and time the suite spends on its own work is never charged to
 * the target as a timeout. 5,000 records show it (past the 1,000 chain reads a sample is bounded
 * to); how long 50,000 take is measured in bench/bench.ts, not asserted here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { httpRequest } from '../../src/harness/http';
import { LIST_PATH, sampled } from '../../src/harness/records';
import { RestClient } from '../../src/harness/rest';
import { Redactor } from '../../src/harness/redact';
import { runChecks, type CheckResult } from '../../src/harness/runner';
import { decided } from '../support/runs';
import { Transcript } from '../../src/harness/transcript';
import { checks as restChecks } from '../../suites/rest';
import { startLargeListServer, type LargeListServer } from '../../bench/large-list';

const COUNT = 5_000;
const LAST = COUNT - 1;

describe(`a list of ${COUNT.toLocaleString('en-US')} records`, () => {
  let server: LargeListServer;
  let by: Record<string, CheckResult>;
  beforeAll(async () => {
    server = await startLargeListServer(COUNT, (i) => (i === LAST ? { isin: 'US0378331006' } : {}));
    const results = await runChecks(
      restChecks,
      {
        baseUrl: server.url,
        restHeaders: {},
        rpcHeaders: {},
        settings: { profile: 'dedicated', clockSkewSec: 300, timeoutMs: 10_000 },
        redactor: new Redactor(),
        signal: new AbortController().signal,
      },
      { concurrency: 4 },
    );
    by = Object.fromEntries(decided(results).map((r) => [r.id, r]));
  }, 300_000);
  afterAll(() => server.close());

  test('no check fails or stops on a timeout: each has its verdict', () => {
    // A request that timed out is a transport failure; a check past its own limit is a timeout.
    const timedOut = Object.values(by).filter((r) => r.cause === 'transport' || r.cause === 'timeout');
    expect(timedOut.map((r) => `${r.id}: ${r.reason}`)).toEqual([]);
  });

  test('the one bad record fails its field check, by index, and the schema names that check as its cause; the others pass', () => {
    expect(by['rest.list.schema']).toMatchObject({ status: 'inconclusive', cause: 'blocked', blockedBy: 'rest.token.field.isin' });
    expect(by['rest.list.schema']!.reason).toMatch(new RegExp(`1 problem\\(s\\): /tokens/${LAST}/isin must match format "isin"`));
    expect(by['rest.token.field.isin']!.reason).toMatch(new RegExp(`^1 of ${COUNT} records break the rule .*tokens\\[${LAST}\\]`));
    const failed = Object.values(by)
      .filter((r) => r.status === 'failed')
      .map((r) => r.id);
    expect(failed).toEqual(['rest.token.field.isin']);
    expect(by['rest.token.contract-address.unique']!.status).toBe('passed');
    expect(by['rest.token.symbol.non-empty']).toMatchObject({ status: 'passed', notes: [`${COUNT} record(s) judged`] });
  });

  test('the list is fetched once for every check that judges it (and once more without credentials)', () => {
    expect(server.listGets()).toBe(2);
    expect(by['rest.token.field.isin']!.exchanges).toHaveLength(1);
  });
});

describe("the suite's own work is not charged to the target", () => {
  let child: ChildProcess;
  let url: string;
  beforeAll(async () => {
    // The target runs in another process, so that blocking this one does not delay its answer.
    child = spawn(
      process.execPath,
      [
        '-e',
        "require('http').createServer((q, s) => setTimeout(() => s.end('{}'), 50)).listen(0, '127.0.0.1', function () { console.log(this.address().port) })",
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const port = await new Promise<string>((resolve) => child.stdout!.once('data', (d) => resolve(String(d).trim())));
    url = `http://127.0.0.1:${port}/`;
  });
  afterAll(() => void child.kill());

  test('an answer that arrived while this process was busy is read, not timed out', async () => {
    const pending = httpRequest({ method: 'GET', url, headers: {} }, { timeoutMs: 500, redactor: new Redactor(), transcript: new Transcript() });
    // Three times the timeout of work on this thread (judging a huge list, say), right after sending.
    const until = Date.now() + 1500;
    while (Date.now() < until);
    await expect(pending).resolves.toMatchObject({ status: 200, text: '{}' });
  });
});

test('per-record chain reads of a long list are a stated sample spread over the whole list', () => {
  const notes: string[] = [];
  const items = Array.from({ length: COUNT }, (_, i) => i);
  const sample = sampled({ note: (n) => void notes.push(n) }, items, 'listed addresses');
  expect(sample).toHaveLength(1000);
  expect([sample[0], sample.at(-1)]).toEqual([0, LAST]);
  expect(new Set(sample).size).toBe(1000);
  expect(notes).toEqual([
    `a sample of 1000 of the ${COUNT} listed addresses, spread evenly over the list (first and last included), was judged; the others were not asked about`,
  ]);
  expect(sampled({ note: (n) => void notes.push(n) }, items.slice(0, 1000), 'records')).toEqual(items.slice(0, 1000));
  expect(notes).toHaveLength(1); // a list within the bound is judged whole, without a note
});

test('a long answer is parsed once however often the same bytes come, and again when they differ', async () => {
  // 5,000 records: past the 1 MiB from which an answer is known by the SHA-256 of its bytes.
  const [same, other] = await Promise.all([startLargeListServer(5_000), startLargeListServer(5_000, (i) => (i === 4_999 ? { symbol: 'OTHER' } : {}))]);
  try {
    const client = (url: string) =>
      new RestClient(url, { authorization: 'Bearer t' }, { timeoutMs: 10_000, redactor: new Redactor(), transcript: new Transcript() });
    const first = await client(same.url).get(LIST_PATH);
    // Without the configured headers (rest.list.no-credentials): sent, answered alike, and judged on the value already parsed.
    const anonymous = await client(same.url).request('GET', LIST_PATH, { omitConfiguredHeaders: true });
    expect(same.listGets()).toBe(2);
    expect(anonymous.json).toBe(first.json);
    const changed = await client(other.url).get(LIST_PATH);
    expect(changed.json).not.toBe(first.json);
    expect((changed.json as { tokens: Array<{ symbol: string }> }).tokens[4_999]!.symbol).toBe('OTHER');
  } finally {
    await Promise.all([same.close(), other.close()]);
  }
});
