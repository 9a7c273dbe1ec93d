/**
 * The CLI against hostile targets (real servers on 127.0.0.1, test/support/hostile.ts): one that
 * echoes every credential it was sent, one that nests its answers thousands of levels deep, one
 * that answers 8 MB values. Whatever they answer, the reports are written, bounded, and carry
 * no secret.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';
import { echoed, rpcReply, startHostile, type HostileServer, type SeenRequest } from '../support/hostile';
import { capture } from '../support/sink';
import type { Observation } from '../../src/harness/observation';

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'hostile-'));
  const out = capture();
  const err = capture();
  const code = await main([...argv, '--report-dir', dir], env, { out: out.stream, err: err.stream });
  const files = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));
  return {
    code,
    dir,
    files,
    console: out.text() + err.text(),
    results: JSON.parse(files['results.json']) as {
      status: string;
      target: Record<string, unknown>;
      checks: Array<{ id: string; status: string; cause?: string; reason: string; actual?: Observation; expected?: Observation }>;
    },
  };
}

describe('no report carries a secret, whatever the target echoes', () => {
  const BEARER = 'sk_live_T0kenQ7xW2kLm9PzR';
  const USER = 'alice.smith';
  const PASSWORD = 'hunter2pass@x';
  const PROXY_USER = 'bob-builder';
  const PROXY_PASSWORD = 'Pr0xyPassw0rd!';
  const PATH_KEY = 'q7Xw2kLm9PzR4tYb';
  const QUERY_KEY = 'QKEY987654321zz';
  const RPC_PATH_KEY = '550e8400-e29b-41d4-a716-446655440000';
  /** A key with no digit: no plain word all the same (more than 16 letters), so masked and registered. */
  const DIGITLESS_KEY = 'kQwErTyUiOpAsDfGhJkLzXcVbNm';
  const GIVEN_SECRET = 'tenant-s3cret-value';
  const SIGNER_KEY = `0x${'5ec2e7ab'.repeat(8)}`;
  const basicOf = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString('base64');
  /** Each secret whole, and the forms a target is likely to echo (URL-encoded, without 0x, Basic's base64). A Basic user name is no secret. */
  const SECRETS = [
    BEARER,
    PASSWORD,
    encodeURIComponent(PASSWORD),
    PROXY_PASSWORD,
    encodeURIComponent(PROXY_PASSWORD),
    basicOf(USER, PASSWORD),
    basicOf(PROXY_USER, PROXY_PASSWORD),
    PATH_KEY,
    QUERY_KEY,
    RPC_PATH_KEY,
    DIGITLESS_KEY,
    GIVEN_SECRET,
    SIGNER_KEY.slice(2),
  ];

  let server: HostileServer;
  let calls = 0;
  /** Echo what was sent, and plant every secret too, shifted a little more each time so that some land across the 200-character cut of messages. */
  const answer = (req: SeenRequest) => {
    const pad = 'x'.repeat(150 + (calls++ % 80));
    const text = `${pad}${echoed(req)} ${SECRETS.join(' ')} ${SECRETS.map((s) => `${pad}${s}`).join(' ')}`;
    if (req.method !== 'POST')
      return {
        status: calls % 3 === 0 ? 400 : 200,
        headers: { 'x-echo': `${BEARER} ${PATH_KEY}` },
        body: JSON.stringify({ tokens: [{ contract_address: text, name: `${pad}apikey=${QUERY_KEY}` }], code: 3, message: text }),
      };
    return rpcReply(req, () =>
      calls % 2 === 0 ? { error: { code: -32000, message: text, data: { echo: text } } } : { result: `${pad}apikey=${QUERY_KEY}&${text}` },
    );
  };

  beforeAll(async () => {
    server = await startHostile(answer);
  });
  afterAll(() => server.close());

  it('plants every kind of secret; none is found in any output, whole or as any 8-character fragment', async () => {
    const url = new URL(server.origin);
    const baseUrl = `http://${USER}:${encodeURIComponent(PASSWORD)}@${url.host}/tenant/${PATH_KEY}`;
    const rpcUrl = `${server.origin}/v2/${RPC_PATH_KEY}/${DIGITLESS_KEY}?apikey=${QUERY_KEY}`;
    const r = await run(
      [
        '--base-url',
        baseUrl,
        '--rpc-url',
        rpcUrl,
        '--only',
        'rest,rpc,cross',
        '--secret',
        GIVEN_SECRET,
        '--signer-key',
        SIGNER_KEY,
        '--certify',
        '--samples',
        '2',
        '--timeout-ms',
        '3000',
        '--deadline-ms',
        '90000',
      ],
      { RPC_HEADERS: `Authorization: Bearer ${BEARER}`, REST_HEADERS: `Proxy-Authorization: Basic ${basicOf(PROXY_USER, PROXY_PASSWORD)}` },
    );
    // The target really was sent (and so could echo) the credentials.
    const sent = server.seen.map(echoed).join('\n');
    for (const s of [BEARER, USER, PASSWORD, PROXY_PASSWORD, PATH_KEY, QUERY_KEY, RPC_PATH_KEY]) expect(sent).toContain(s);
    expect(Object.keys(r.files).sort()).toEqual(['badge.svg', 'certificate.json', 'junit.xml', 'predicate.json', 'report.html', 'results.json', 'summary.md']);
    const outputs = { ...r.files, console: r.console };
    const leaks: string[] = [];
    for (const secret of SECRETS) {
      const fragments = new Set([secret, ...Array.from({ length: Math.max(0, secret.length - 7) }, (_, i) => secret.slice(i, i + 8))]);
      for (const [name, text] of Object.entries(outputs)) {
        const lower = text.toLowerCase();
        for (const f of fragments) if (lower.includes(f.toLowerCase())) leaks.push(`${name}: ${JSON.stringify(f)} of ${JSON.stringify(secret)}`);
      }
    }
    expect(leaks).toEqual([]);
    // The reports still say where the run went: origin and masked path.
    expect(r.results.target.baseUrl).toBe(`${server.origin}/tenant/***`);
    expect(r.results.target.rpcUrl).toBe(`${server.origin}/v2/***/***?apikey=***`);
    // The certificate names its targets exactly as results.json does.
    const configuration = JSON.parse(r.files['certificate.json']).predicate.configuration as Array<{ name: string; uri?: string }>;
    expect(configuration.filter((c) => c.name.startsWith('target:')).map((c) => c.uri)).toEqual([r.results.target.baseUrl, r.results.target.rpcUrl]);
    expect(r.console).toContain(`target: REST ${server.origin}/tenant/***, JSON-RPC ${server.origin}/v2/***/***?apikey=***`);
  });
});

describe('answers a target may send that no conformant one would', () => {
  it('an answer nested 5,000 levels deep: not judged, the bound named, reports written', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const server = await startHostile((req) =>
      req.method === 'POST' ? { body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: 0 }).replace('0}', `${deep}}`) } : { body: `{"tokens":${deep}}` },
    );
    try {
      const r = await run(['--base-url', server.origin, '--rpc-url', `${server.origin}/rpc`, '--only', 'rest,rpc', '--timeout-ms', '3000']);
      expect(r.code).toBe(3);
      expect(r.results.status).toBe('incomplete');
      // Not judged by a bound of the suite's own, said as data (cause) and in words (the bound named).
      const deepOnes = r.results.checks.filter((c) => c.cause === 'limit');
      expect(deepOnes.length).toBeGreaterThan(20);
      for (const c of deepOnes) expect(c).toMatchObject({ status: 'inconclusive', reason: expect.stringContaining('nested deeper than 1000 levels') });
      expect(Object.keys(r.files)).toEqual(expect.arrayContaining(['junit.xml', 'report.html', 'results.json', 'summary.md']));
    } finally {
      await server.close();
    }
  });

  it('an 8 MB hex result: every kept value cut with its size stated, results.json under 10 MB', async () => {
    const hex = `0x${'ab'.repeat(4 * 1024 * 1024)}`;
    const server = await startHostile((req) => rpcReply(req, () => ({ result: hex })));
    try {
      const r = await run([
        '--rpc-url',
        `${server.origin}/rpc`,
        '--grep',
        '^rpc\\.(getCode|getTransactionCount)\\.block\\.(latest|pending|safe|finalized|earliest)$',
        '--timeout-ms',
        '20000',
      ]);
      expect(r.code).toBe(1);
      const size = statSync(path.join(r.dir, 'results.json')).size;
      expect(size).toBeLessThan(10 * 1024 * 1024);
      const cut = r.results.checks.filter((c) => c.actual?.kind === 'text' && c.actual.bytes === 8_388_610);
      expect(cut.length).toBeGreaterThan(0);
      for (const c of r.results.checks) expect(JSON.stringify(c).length).toBeLessThan(256 * 1024);
    } finally {
      await server.close();
    }
  }, 120_000);
});
