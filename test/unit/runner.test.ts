import http from 'node:http';
import { check, type Check } from '../../src/harness/check';
import { blocked, fail, inconclusive, notGiven, skip } from '../../src/harness/verdict';
import { Redactor } from '../../src/harness/redact';
import { notSelected, runChecks, type CheckResult, type RunEnv } from '../../src/harness/runner';
import { LARGE_ANSWER_CHECKS } from '../../src/harness/slots';
import { createSigner, SpendBudget } from '../../src/harness/signer';
import { AnswerBudget, LARGE_ANSWER_BYTES } from '../../src/harness/http';
import { closeServer, listenLoopback } from '../support/loopback';
import { decided, testCheckMeta, testRunEnv } from '../support/runs';

let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2_000);
    if (req.url === '/hang') return; // never answered (closed with the server)
    // A provider asking to come back in a minute: more than a request may wait.
    if (req.url === '/throttled') return void res.writeHead(429, { 'retry-after': '60' }).end();
    // A gateway whose backend is down, asking to come back in a minute: more than a request may wait.
    if (req.url === '/gateway') return void res.writeHead(502, { 'retry-after': '60' }).end('<html>502 Bad Gateway</html>');
    // An answer of LARGE_ANSWER_BYTES, after a moment (so the checks asking overlap).
    if (req.url === '/large') return void setTimeout(() => res.end(JSON.stringify({ pad: 'x'.repeat(LARGE_ANSWER_BYTES) })), 20);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ echo: req.headers['x-api-key'] ?? null }));
  });
  url = await listenLoopback(server);
});
afterAll(() => closeServer(server));

const env = (over: Partial<RunEnv> = {}): RunEnv => testRunEnv(url, over);

const meta = testCheckMeta;

describe('runChecks', () => {
  it('maps each way a check can end to its status, keeping exchanges only when it did not pass', async () => {
    const checks = [
      check(meta('pass'), async ({ rest }) => void (await rest.get('/v1/tokenized-stocks'))),
      check(meta('fail', { statements: ['2.2.1', '4.1.1'] }), async ({ rest }) => {
        await rest.get('/v1/tokenized-stocks');
        fail('bad', { violated: ['2.2.1'], expected: 1, actual: 2 });
      }),
      check(meta('skip'), async () => skip('nothing to judge')),
      check(meta('bigint'), async ({ metric }) => {
        metric('wei', { spent: 10n ** 18n });
        fail('too much', { expected: 1n, actual: [2n] });
      }),
      check(meta('inconclusive'), async () => inconclusive('sealed mid-check')),
      check(meta('limit'), async () => inconclusive('too large to analyse', { cause: 'limit' })),
      check(meta('bug'), async () => {
        JSON.stringify((undefined as unknown as { x: number }).x);
      }),
      check(meta('timeout'), async ({ rest }) => void (await rest.get('/slow'))),
      // A failure citing a statement its check does not declare: a bug of the suite.
      check(meta('undeclared'), async () => fail('id not echoed', { violated: ['4.2.1'] })),
    ];
    const results = await runChecks(checks, env(), { concurrency: 3 });
    const by = Object.fromEntries(results.map((r) => [r.id.split('.').pop(), r]));
    expect(by.pass).toMatchObject({ status: 'passed', exchanges: [], exchangeCount: 1 });
    expect(by.pass.cause).toBeUndefined();
    expect(by.fail).toMatchObject({
      status: 'failed',
      cause: 'violation',
      reason: 'bad',
      violated: ['2.2.1'],
      expected: { kind: 'integer', value: '1' },
      actual: { kind: 'integer', value: '2' },
      exchangeCount: 1,
    });
    expect(by.fail.exchanges[0].curl).toMatch(/^curl .*\/v1\/tokenized-stocks'$/);
    expect(by.skip).toMatchObject({ status: 'skipped', cause: 'nothing-to-judge', reason: 'nothing to judge' });
    // Reporters stringify results: bigints from viem arrive as decimal strings.
    expect(by.bigint).toMatchObject({
      status: 'failed',
      expected: { kind: 'integer', value: '1' },
      actual: { kind: 'text', preview: '["2"]', bytes: 5 },
      metrics: { wei: { spent: '1000000000000000000' } },
    });
    expect(by.inconclusive).toMatchObject({ status: 'inconclusive', cause: 'ambiguous', reason: 'sealed mid-check' });
    // A bound of the suite's own is said to be one, as data.
    expect(by.limit).toMatchObject({ status: 'inconclusive', cause: 'limit' });
    // A bug in a check is never a verdict about the target.
    expect(by.bug).toMatchObject({ status: 'inconclusive', cause: 'internal' });
    // No HTTP answer in time is a failure of the check that needed one, with the exchange.
    expect(by.timeout).toMatchObject({ status: 'failed', cause: 'transport' });
    expect(by.timeout.reason).toMatch(/timeout: no complete answer within 1000 ms/);
    expect(by.timeout.exchanges[0].error).toMatch(/timeout/);
    // violated ⊆ statements: a check may fail only the statements it declares.
    expect(by.undeclared).toMatchObject({ status: 'inconclusive', cause: 'internal' });
    expect(by.undeclared.reason).toMatch(/failed citing 4\.2\.1, which it does not declare \(4\.1\.1\): id not echoed/);
    expect(by.undeclared.violated).toBeUndefined();
  });

  it('skips checks whose needs are not met, saying which flag is missing', async () => {
    const results = await runChecks(
      [
        check(meta('rest'), async () => undefined),
        check({ ...meta('rpc'), id: 'rpc.x.y', needs: ['rpc'] }, async () => undefined),
        check({ ...meta('signer'), id: 'preconf.x.y', needs: ['rpc', 'signer'] }, async () => undefined),
        check({ ...meta('public'), id: 'rpc.x.public', needs: ['rpc', 'profile:public'] }, async () => undefined),
      ],
      env({ baseUrl: undefined }),
      { concurrency: 2 },
    );
    expect(results.map((r) => [r.status, r.cause, r.reason, r.outOfScope])).toEqual([
      ['skipped', 'out-of-scope', 'needs --base-url (REST target)', { flag: '--base-url', words: 'no --base-url' }],
      ['passed', undefined, '', undefined],
      ['skipped', 'out-of-scope', 'needs --signer-key', { flag: '--signer-key', words: 'no --signer-key' }],
      ['skipped', 'out-of-scope', 'applies to --profile public only', { flag: '--profile', words: 'profile dedicated' }],
    ]);
  });

  it("names what a skip by the user's choice left out, and nothing for other skips", async () => {
    const results = await runChecks(
      [
        check(meta('max-age'), async () => skip('no --nav-max-age given', { outOfScope: notGiven('--nav-max-age') })),
        check(meta('empty'), async () => skip('the list is empty')),
      ],
      env(),
      { concurrency: 1 },
    );
    expect(results.map((r) => [r.status, r.cause, r.outOfScope])).toEqual([
      ['skipped', 'out-of-scope', { flag: '--nav-max-age', words: 'no --nav-max-age' }],
      ['skipped', 'nothing-to-judge', undefined],
    ]);
  });
  it('runs signer checks one at a time, beside the read-only pool', async () => {
    let active = 0;
    let maxActive = 0;
    const signerCheck = (i: number) =>
      check({ ...meta(`s${i}`), id: `preconf.s.${i}`, needs: ['rpc', 'signer'] }, async () => {
        maxActive = Math.max(maxActive, ++active);
        await new Promise((r) => setTimeout(r, 20));
        active--;
      });
    const signer = createSigner('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', new SpendBudget(1n));
    const results = await runChecks([0, 1, 2, 3].map(signerCheck), env({ signer }), { concurrency: 4 });
    expect(results.every((r) => r.status === 'passed')).toBe(true);
    expect(maxActive).toBe(1);
  });

  it('stops on abort and reports what did not run instead of dropping it', async () => {
    const controller = new AbortController();
    const results = await runChecks(
      [check(meta('first'), async () => void controller.abort('interrupted by SIGINT')), check(meta('second'), async () => undefined)],
      env({ signal: controller.signal }),
      { concurrency: 1 },
    );
    expect(results[0].status).toBe('passed');
    expect(results[1]).toMatchObject({ status: 'skipped', cause: 'stopped', reason: 'not run: interrupted by SIGINT' });
  });

  it('bounds a check that never ends', async () => {
    const [r] = await runChecks([check(meta('forever'), () => new Promise<void>(() => undefined))], env(), { concurrency: 1, checkTimeoutMs: 100 });
    expect(r).toMatchObject({
      status: 'inconclusive',
      cause: 'timeout',
      reason: expect.stringMatching(/^check did not finish within 100 ms \(the suite's own time limit/),
    });
  });

  it('redacts secrets from recorded exchanges and reasons', async () => {
    const redactor = new Redactor().addHeaders({ 'x-api-key': 'sup3r-s3cret' });
    const [r] = await runChecks(
      [
        check(meta('leak'), async ({ rest }) => {
          const res = await rest.get('/v1/tokenized-stocks');
          fail(`server said ${res.text}`);
        }),
      ],
      env({ redactor, restHeaders: { 'x-api-key': 'sup3r-s3cret' } }),
      { concurrency: 1 },
    );
    expect(JSON.stringify(r)).not.toContain('sup3r-s3cret');
    expect(r.exchanges[0].response?.body).toContain('***');
  });
});

describe('a gateway found down', () => {
  it('leaves the check that met it not judged (cause gateway, its interface), and the checks after it not judged at once, without a request', async () => {
    const checks = [
      check(meta('first'), async ({ rest }) => void (await rest.get('/gateway'))),
      check(meta('later'), async ({ rest }) => void (await rest.get('/v1/tokenized-stocks'))),
    ];
    const [first, later] = await runChecks(checks, env({ gateway: {} }), { concurrency: 1 });
    expect(first).toMatchObject({ status: 'inconclusive', cause: 'gateway', interface: 'rest' });
    expect(first.reason).toMatch(/^gateway or backend down: GET http:\/\/127\.0\.0\.1:\d+\/gateway: HTTP 502 Bad Gateway/);
    expect(first.hint).toMatch(/backend is down/);
    expect(later).toMatchObject({ status: 'inconclusive', cause: 'gateway', interface: 'rest', exchangeCount: 0 });
    expect(later.reason).toMatch(/^not judged: gateway or backend down: /);
  });
});

describe('one root cause, one failure', () => {
  const byId = (rs: readonly CheckResult[]) => Object.fromEntries(rs.map((r) => [r.id, r]));
  const seen: string[] = [];
  const collect = { concurrency: 3, onResult: (r: CheckResult) => void seen.push(r.id) };
  beforeEach(() => void (seen.length = 0));

  it('an unreachable interface fails once, in its designated root check; the others are blocked without running', async () => {
    let ran = 0;
    const checks = [
      check(meta('first'), async () => void ran++),
      check({ ...meta('root'), id: 'rest.list.status-200' }, async () => void ran++),
      check({ ...meta('advisory'), level: 'advisory' }, async () => void ran++),
      check({ ...meta('cross'), id: 'cross.x.y', needs: ['rest', 'rpc'] }, async () => void ran++),
      check({ ...meta('rpc'), id: 'rpc.x.y', needs: ['rpc'] }, async () => void ran++),
    ];
    const by = byId(decided(await runChecks(checks, env({ unreachable: { rest: 'ECONNREFUSED 127.0.0.1:9' } }), collect)));
    expect(ran).toBe(1); // only the RPC check
    expect(by['rest.list.status-200']).toMatchObject({
      status: 'failed',
      cause: 'unreachable',
      unreachable: 'rest',
      reason: 'target unreachable: ECONNREFUSED 127.0.0.1:9',
      violated: ['4.1.1'],
    });
    for (const id of ['rest.test.first', 'rest.test.advisory', 'cross.x.y']) {
      expect(by[id]).toMatchObject({
        status: 'inconclusive',
        cause: 'unreachable',
        unreachable: 'rest',
        reason: 'blocked by target unreachable: rest: target unreachable: ECONNREFUSED 127.0.0.1:9',
      });
      expect(by[id].blockedBy).toBeUndefined();
    }
    expect(by['rpc.x.y'].status).toBe('passed');
    expect(seen.sort()).toEqual(checks.map((c) => c.id).sort()); // every result reported once
  });

  it('without the designated root selected, the first required check of the interface states the failure', async () => {
    const checks = [
      check({ ...meta('advisory'), level: 'advisory' }, async () => undefined),
      check(meta('a'), async () => undefined),
      check(meta('b'), async () => undefined),
    ];
    const rs = decided(await runChecks(checks, env({ unreachable: { rest: 'ECONNREFUSED' } }), collect));
    expect(rs.map((r) => [r.id, r.status, r.cause, r.unreachable])).toEqual([
      ['rest.test.advisory', 'inconclusive', 'unreachable', 'rest'],
      ['rest.test.a', 'failed', 'unreachable', 'rest'],
      ['rest.test.b', 'inconclusive', 'unreachable', 'rest'],
    ]);
  });

  const root = (id: string, outcome: () => Promise<void>) => check({ ...meta(id), id }, outcome);

  it("the runner records what blocked each check, as data, and decides nothing: that is the verdict's (decideRoots)", async () => {
    const rs = await runChecks(
      [
        root('rest.root.check', async () => fail('expected HTTP 200, got 500')),
        check(meta('a'), async () => blocked('rest.root.check', 'GET /list: HTTP 500', { violated: ['4.1.1'] }, { ownEvidence: true })),
        check(meta('helper'), async () => blocked('rest.root.check', 'a helper answered so', { violated: ['4.1.1'] }, { onlyIfRootFailed: true })),
        // A violation it recorded itself, then blocked: its own failure, no blocker (nothing can take it back).
        check(meta('seen'), async (ctx) => {
          ctx.violation('decimals 8 in REST, 18 on chain', { expected: 18, actual: 8 });
          blocked('rest.root.check', 'GET /list: HTTP 500', { violated: ['4.1.1'] });
        }),
        check({ ...meta('rpc'), id: 'rpc.x.y', needs: ['rpc'] }, async () => undefined),
      ],
      env({ unreachable: { rpc: 'ECONNREFUSED' } }),
      collect,
    );
    expect(rs.map((r) => [r.id, r.status, r.cause, r.blocker])).toEqual([
      ['rest.root.check', 'failed', 'violation', undefined],
      ['rest.test.a', 'failed', 'violation', { root: 'rest.root.check', onlyIfRootFailed: false, ownEvidence: true }],
      ['rest.test.helper', 'inconclusive', 'ambiguous', { root: 'rest.root.check', onlyIfRootFailed: true, ownEvidence: false }],
      ['rest.test.seen', 'failed', 'violation', undefined],
      ['rpc.x.y', 'failed', 'unreachable', { unreachable: 'rpc' }],
    ]);
    // Every result is reported as it is recorded, once, a blocked one too.
    expect(seen.sort()).toEqual(rs.map((r) => r.id).sort());
  });
  const dependent = (name: string, rootId = 'rest.root.check', extra: Partial<Check> = {}) =>
    check(meta(name, extra), async () => blocked(rootId, `GET /list: expected HTTP 200, got 500`, { violated: ['4.1.1'], expected: 200, actual: 500 }));

  it('a check blocked by a root that failed is inconclusive, blockedBy the root, and keeps what it saw', async () => {
    const checks = [dependent('a'), root('rest.root.check', async () => fail('expected HTTP 200, got 500')), dependent('b')];
    const by = byId(decided(await runChecks(checks, env(), collect)));
    expect(by['rest.root.check'].status).toBe('failed');
    for (const id of ['rest.test.a', 'rest.test.b']) {
      expect(by[id]).toMatchObject({
        status: 'inconclusive',
        cause: 'blocked',
        blockedBy: 'rest.root.check',
        reason: 'blocked by rest.root.check: GET /list: expected HTTP 200, got 500',
      });
      expect(by[id].violated).toBeUndefined();
    }
    expect(seen.sort()).toEqual(checks.map((c) => c.id).sort());
  });

  it('a root not selected: the first required blocked check fails citing the root rule, the rest blocked by it', async () => {
    const checks = [
      dependent('adv', undefined, { level: 'advisory', statements: ['2.1.1'] }),
      dependent('a', undefined, { statements: ['2.1.1'] }),
      dependent('b', undefined, { statements: ['2.1.1'] }),
    ];
    const rs = decided(await runChecks(checks, env(), collect));
    expect(rs.map((r) => [r.id, r.status, r.blockedBy])).toEqual([
      ['rest.test.adv', 'inconclusive', 'rest.test.a'],
      ['rest.test.a', 'failed', undefined],
      ['rest.test.b', 'inconclusive', 'rest.test.a'],
    ]);
    expect(rs[1]).toMatchObject({
      section: '2.1',
      cause: 'violation',
      violated: ['4.1.1'],
      expected: { kind: 'integer', value: '200' },
      actual: { kind: 'integer', value: '500' },
    });
    expect(rs[1].reason).toBe('GET /list: expected HTTP 200, got 500 (stated here: rest.root.check, which judges that rule, was not selected)');
  });

  it('a check only its root failure explains is blocked when the root failed, and otherwise not judged, never a stand-in failure', async () => {
    const helper = (name: string) =>
      check(meta(name), async () =>
        blocked('rest.root.check', 'a helper answered as the broken envelope does', { violated: ['4.1.1'] }, { onlyIfRootFailed: true }),
      );
    const failedRoot = byId(decided(await runChecks([root('rest.root.check', async () => fail('broken')), helper('a')], env(), collect)));
    expect(failedRoot['rest.test.a']).toMatchObject({ status: 'inconclusive', cause: 'blocked', blockedBy: 'rest.root.check' });
    const passedRoot = byId(decided(await runChecks([root('rest.root.check', async () => undefined), helper('a'), helper('b')], env(), collect)));
    for (const id of ['rest.test.a', 'rest.test.b'])
      expect(passedRoot[id]).toMatchObject({ status: 'inconclusive', cause: 'ambiguous', reason: 'a helper answered as the broken envelope does' });
    // Beside a check whose evidence stands, it is blocked by that one.
    const mixed = decided(await runChecks([helper('a'), dependent('b')], env(), collect));
    expect(mixed.map((r) => [r.id, r.status, r.blockedBy])).toEqual([
      ['rest.test.a', 'inconclusive', 'rest.test.b'],
      ['rest.test.b', 'failed', undefined],
    ]);
  });

  it('a root that passed on its own request leaves the evidence standing once', async () => {
    const rs = decided(await runChecks([root('rest.root.check', async () => undefined), dependent('a'), dependent('b')], env(), collect));
    expect(rs.map((r) => [r.status, r.blockedBy])).toEqual([
      ['passed', undefined],
      ['failed', undefined],
      ['inconclusive', 'rest.test.a'],
    ]);
    expect(rs[1].reason).toMatch(/rest\.root\.check passed on its own request, so the answer changed between requests/);
  });

  it("answers to each check's own request (ownEvidence: a block parameter refused with HTTP 400): each stated when the root passed, blocked when it failed", async () => {
    const own = (name: string) =>
      check(meta(name), async () =>
        blocked('rest.root.check', `eth_getCode at "${name}" answered HTTP 400 with error {"code":-32602}`, { violated: ['4.1.1'] }, { ownEvidence: true }),
      );
    const passed = decided(await runChecks([root('rest.root.check', async () => undefined), own('safe'), own('finalized'), dependent('c')], env(), collect));
    expect(passed.map((r) => [r.id, r.status, r.blockedBy])).toEqual([
      ['rest.root.check', 'passed', undefined],
      ['rest.test.safe', 'failed', undefined],
      ['rest.test.finalized', 'failed', undefined],
      // A check whose evidence is the interface's (not its own request's) still stands in once.
      ['rest.test.c', 'failed', undefined],
    ]);
    expect(passed[1].reason).toBe(
      'eth_getCode at "safe" answered HTTP 400 with error {"code":-32602} (rest.root.check passed on its own request: this answer is this request\'s own)',
    );
    expect(passed[1].reason).not.toMatch(/answer changed between requests/);
    const failedRoot = decided(
      await runChecks([root('rest.root.check', async () => fail('HTTP 400 to every call')), own('safe'), own('finalized')], env(), collect),
    );
    expect(failedRoot.map((r) => [r.id, r.status, r.blockedBy])).toEqual([
      ['rest.root.check', 'failed', undefined],
      ['rest.test.safe', 'inconclusive', 'rest.root.check'],
      ['rest.test.finalized', 'inconclusive', 'rest.root.check'],
    ]);
  });

  it('Blocked thrown by the root itself is its own failure; a blocked root passes its blocker on', async () => {
    const checks = [
      root('rest.root.check', async () => blocked('rest.root.check', 'not JSON', { violated: ['4.1.1'] })),
      // A second-level root blocked by the first: checks blocked by it name the first link.
      check({ ...meta('mid'), id: 'rest.mid.check' }, async () => blocked('rest.root.check', 'not JSON', { violated: ['4.1.1'] })),
      dependent('leaf', 'rest.mid.check'),
    ];
    const by = byId(decided(await runChecks(checks, env(), collect)));
    expect(by['rest.root.check']).toMatchObject({ status: 'failed', reason: 'not JSON', violated: ['4.1.1'] });
    expect(by['rest.mid.check']).toMatchObject({ status: 'inconclusive', blockedBy: 'rest.root.check' });
    expect(by['rest.test.leaf']).toMatchObject({ status: 'inconclusive', blockedBy: 'rest.root.check' });
  });
});

describe('why a check was not judged, as data (cause), whatever its reason says', () => {
  it('once the target sends a large answer, only LARGE_ANSWER_CHECKS read-only checks run at once (each holds its answer while it judges)', async () => {
    let running = 0;
    const afterLarge: number[] = [];
    let seenLarge = false;
    const checks = Array.from({ length: 12 }, (_, i) =>
      check(meta(`large-${i}`), async ({ rest }) => {
        running++;
        if (seenLarge) afterLarge.push(running);
        try {
          await rest.get('/large');
          seenLarge = true;
          await new Promise((r) => setTimeout(r, 10));
        } finally {
          running--;
        }
      }),
    );
    const results = await runChecks(checks, env(), { concurrency: 8 });
    expect(results.every((r) => r.status === 'passed')).toBe(true);
    // The first eight started before any answer came; every check started after it ran with at most two at once.
    expect(afterLarge.length).toBeGreaterThan(0);
    expect(Math.max(...afterLarge)).toBeLessThanOrEqual(LARGE_ANSWER_CHECKS);
  });

  it('throttled: the provider kept asking to slow down', async () => {
    const [r] = await runChecks([check(meta('throttled'), async ({ rest }) => void (await rest.get('/throttled')))], env(), { concurrency: 1 });
    expect(r).toMatchObject({ status: 'inconclusive', cause: 'throttled' });
  });

  it('stopped: the run was interrupted while the check waited for an answer', async () => {
    const controller = new AbortController();
    const checks = [
      check(meta('waiting'), async ({ rest }) => {
        setTimeout(() => controller.abort('interrupted by SIGTERM'), 50);
        await rest.get('/hang');
      }),
    ];
    const [r] = await runChecks(checks, env({ signal: controller.signal, settings: { profile: 'dedicated', clockSkewSec: 300, timeoutMs: 5_000 } }), {
      concurrency: 1,
    });
    expect(r).toMatchObject({ status: 'inconclusive', cause: 'stopped', reason: 'stopped: interrupted by SIGTERM' });
  });

  it('stopped: a check that saw the stop and said so in its own words is still stopped, not ambiguous', async () => {
    const controller = new AbortController();
    const [r] = await runChecks(
      [
        check(meta('scan'), async ({ signal }) => {
          controller.abort('run deadline of 10 ms reached');
          if (signal.aborted) inconclusive('the block scan ended early');
        }),
      ],
      env({ signal: controller.signal }),
      { concurrency: 1 },
    );
    expect(r).toMatchObject({ status: 'inconclusive', cause: 'stopped' });
  });

  it('a verdict reached before the stop stands', async () => {
    const controller = new AbortController();
    const [r] = await runChecks(
      [
        check(meta('failed-first'), async () => {
          controller.abort('interrupted by SIGINT');
          fail('expected HTTP 200, got 500');
        }),
      ],
      env({ signal: controller.signal }),
      { concurrency: 1 },
    );
    expect(r).toMatchObject({ status: 'failed', cause: 'violation' });
  });

  it('transport: no HTTP answer where the rule needs one, while the interface still answers', async () => {
    // The list's path resets the connection; any other path is answered (404), as the interface is asked again.
    const server = http.createServer((req, res) => (req.url === '/v1/tokenized-stocks' ? req.socket.destroy() : res.writeHead(404).end()));
    const url = await listenLoopback(server);
    try {
      const [r] = await runChecks([check(meta('reset'), async ({ rest }) => void (await rest.get('/v1/tokenized-stocks')))], env({ baseUrl: url }), {
        concurrency: 1,
      });
      expect(r).toMatchObject({ status: 'failed', cause: 'transport' });
    } finally {
      await closeServer(server);
    }
  });

  it('gateway: no answer, and none to the interface asked again for a few seconds either: it went down after the run opened (not judged)', async () => {
    const [r] = await runChecks([check(meta('refused'), async ({ rest }) => void (await rest.get('/')))], env({ baseUrl: 'http://127.0.0.1:9' }), {
      concurrency: 1,
    });
    expect(r).toMatchObject({ status: 'inconclusive', cause: 'gateway', interface: 'rest' });
    expect(r.reason).toMatch(/asked again for 5 s, GET \/v1\/conformance-still-there got no answer \(/);
  });

  it("the run's answer budget: once spent, the answers checks ask for are refused and they are not judged (cause limit), never failed", async () => {
    // Each answer here is 13 bytes ({"echo":null}); the run may read 30, all checks together.
    const answers = new AnswerBudget(30);
    const read = (id: string) => check(meta(id), async ({ rest }) => void (await rest.get('/v1/tokenized-stocks')));
    const rs = await runChecks([read('a'), read('b'), read('c'), read('d'), read('e')], env({ answers }), { concurrency: 1 });
    expect(rs.map((r) => r.status)).toEqual(['passed', 'passed', 'inconclusive', 'inconclusive', 'inconclusive']);
    for (const r of rs.slice(2)) expect(r).toMatchObject({ cause: 'limit', exchangeCount: 1 });
    expect(answers.spent).toBe(true);
  });

  it('deselected: --only and --grep name their flag', () => {
    expect(notSelected({ ...meta('x'), section: '4.1' }, { flag: '--grep', words: '--grep ^rpc' })).toMatchObject({
      status: 'skipped',
      cause: 'deselected',
      reason: 'not selected (--grep ^rpc)',
      outOfScope: { flag: '--grep', words: '--grep ^rpc' },
      exchanges: [],
      exchangeCount: 0,
    });
    expect(notSelected({ ...meta('x'), section: '4.1' }, { flag: '--only', words: '--only rpc' })).toMatchObject({
      status: 'skipped',
      cause: 'deselected',
      outOfScope: { flag: '--only' },
    });
  });
});

describe('the context holds exactly the clients a check declared', () => {
  it('gives rest, rpc, signer and the OpenAPI source only to the checks that need them', async () => {
    const seen: Record<string, string[]> = {};
    const keys = (name: string) => async (ctx: object) => void (seen[name] = ['rest', 'rpc', 'signer', 'openapi'].filter((k) => k in ctx));
    const signer = createSigner('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', new SpendBudget(1n));
    await runChecks(
      [
        check(meta('rest'), keys('rest')),
        check({ ...meta('rpc'), id: 'rpc.x.y', needs: ['rpc'] }, keys('rpc')),
        check({ ...meta('signer'), id: 'preconf.x.y', needs: ['rpc', 'signer'] }, keys('signer')),
        check({ ...meta('openapi'), needs: ['openapi'] }, keys('openapi')),
      ],
      env({ signer, settings: { profile: 'dedicated', clockSkewSec: 300, timeoutMs: 1_000, openapi: { source: '/nonexistent/openapi.yaml', text: '{}' } } }),
      { concurrency: 1 },
    );
    expect(seen).toEqual({ rest: ['rest'], rpc: ['rpc'], signer: ['rpc', 'signer'], openapi: ['openapi'] });
  });

  it('types them the same way: an undeclared client does not compile (tsc checks this file)', () => {
    const c = check({ ...meta('typed'), id: 'rpc.x.typed', needs: ['rpc', 'signer'] }, async (ctx) => {
      void ctx.rpc.call('eth_chainId', []);
      void ctx.signer.address;
      // @ts-expect-error rest was not declared
      void ctx.rest;
      // @ts-expect-error nor was openapi
      void ctx.openapi;
    });
    expect(c.needs).toEqual(['rpc', 'signer']);
  });
});

describe('SpendBudget', () => {
  it('reserves until the cap, then refuses with the amount and reserves nothing', () => {
    const b = new SpendBudget(100n);
    expect(b.reserve(60n)).toBeUndefined();
    expect(b.reserve(50n)).toMatch(/spend cap reached: needs 50 wei more, 40 wei left/);
    expect(b.spentWei).toBe(60n);
  });
});

describe('a failure names the statements it violated', () => {
  it('those it names, each one it declares; by default the only one, or every one the check declares', async () => {
    const several = { statements: ['4.5.1', '4.5.2', '1.4.1'] };
    const checks: Check[] = [
      check(meta('single'), async () => fail('bad')),
      check(meta('named', several), async () => fail('bad', { violated: ['4.5.2'] })),
      check(meta('unnamed', several), async () => fail('bad')),
      // A rule the check does not declare (the response id of 4.2.1) is never its failure: a bug of the suite.
      check(meta('foreign', several), async () => fail('bad', { violated: ['4.2.1'] })),
      check(meta('passes', several), async () => undefined),
    ];
    const by = Object.fromEntries((await runChecks(checks, env(), { concurrency: 2 })).map((r) => [r.id.split('.').pop(), r]));
    expect(by.single.violated).toEqual(['4.1.1']);
    expect(by.named.violated).toEqual(['4.5.2']);
    expect(by.unnamed.violated).toEqual(['4.5.1', '4.5.2', '1.4.1']);
    expect(by.foreign).toMatchObject({ status: 'inconclusive', cause: 'internal' });
    expect(by.foreign.violated).toBeUndefined();
    expect(by.passes.violated).toBeUndefined();
  });
});
