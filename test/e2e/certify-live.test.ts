// verify-certificate --live on real targets: a signed certificate of the embedded reference, taken
// through a fault proxy that is faithful at first; re-checked live it passes; once the proxy starts
// corrupting one field of one record (as a deployment that broke after certification), it fails.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';
import { startReference, type ReferenceTarget } from '../../src/reference';
import { Raw, startProxy, type Proxy } from '../faults/proxy';
import { sink } from '../support/sink';

const LIST = '/v1/tokenized-stocks';

let ref: ReferenceTarget;
let proxy: Proxy;
let broken = false;
const dir = mkdtempSync(path.join(tmpdir(), 'live-'));
const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const keyDir = mkdtempSync(path.join(tmpdir(), 'keys-'));
const privateFile = path.join(keyDir, 'sign.pem');
const publicFile = path.join(keyDir, 'sign.pub.pem');
writeFileSync(privateFile, keys.privateKey.export({ type: 'pkcs8', format: 'pem' }));
writeFileSync(publicFile, keys.publicKey.export({ type: 'spki', format: 'pem' }));

async function cli(argv: string[]): Promise<{ code: number; out: string }> {
  const out = sink();
  const code = await main(argv, {}, { out: out.stream, err: out.stream });
  return { code, out: out.text() };
}

beforeAll(async () => {
  ref = await startReference({ profile: 'dedicated', blockTimeMs: 1000 });
  proxy = await startProxy({
    restUpstream: ref.baseUrl,
    rpcUpstream: ref.rpcUrl,
    // Once broken: the second record's ISIN gets a wrong check digit.
    rest: async (req, next) => {
      const res = await next();
      const body = res.json() as { tokens?: Array<{ isin?: string }> } | undefined;
      if (!broken || req.method !== 'GET' || new URL(req.path, 'http://x').pathname !== LIST || !Array.isArray(body?.tokens) || body.tokens.length < 2)
        return res;
      const isin = String(body.tokens[1].isin);
      body.tokens[1].isin = isin.slice(0, 11) + String((Number(isin[11]) + 1) % 10);
      return new Raw(res.status, res.headers, JSON.stringify(body));
    },
  });
  const run = await cli([
    '--base-url',
    proxy.restUrl,
    '--rpc-url',
    proxy.rpcUrl,
    '--only',
    'rest',
    '--certify',
    '--samples',
    '2',
    '--sign-key',
    privateFile,
    '--report-dir',
    dir,
  ]);
  if (run.code !== 0) throw new Error(`certifying run: exit ${run.code}\n${run.out}`);
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  await ref?.stop();
});

it('passes live against the certified target, then fails once the target broke after certification', async () => {
  const ok = await cli(['verify-certificate', dir, '--key', publicFile, '--live']);
  if (ok.code !== 0) throw new Error(ok.out);
  expect(ok.out).toMatch(
    /signature checked with --key; .*\nsamples: 2 answers per read-only question .*\nlive: re-ran (\d+) certified check\(s\) that need no signer against REST http:\/\/127\.0\.0\.1:\d+, JSON-RPC http:\/\/127\.0\.0\.1:\d+: \1 pass, 0 fail now, 0 not judged now\n$/,
  );

  broken = true;
  const bad = await cli(['verify-certificate', dir, '--key', publicFile, '--live', '--base-url', proxy.restUrl]);
  expect(bad.code).toBe(1);
  expect(bad.out).toMatch(/: \d+ pass, [1-9]\d* fail now, \d+ not judged now\n/);
  expect(bad.out).toMatch(/^ {2}FAILS NOW rest\.[\w.-]+ \(§2\.1[^)]*\): .*isin/im);
}, 120_000);
