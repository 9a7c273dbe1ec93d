/**
 * A target that echoes every credential it was given in every form an honest server echoes by
 * accident (the closed list of docs/safe-to-share.md; test/support/hostile.ts, real HTTP on
 * 127.0.0.1): as sent, as JSON member names and values (with PHP's `\/`), in response headers,
 * percent-encoded byte by byte, form-encoded, Python's quote, HTML numeric references, hex (with
 * 0x and upper-cased), base64 and base64url at each byte offset, and in a long text/plain answer
 * that messages cut at 200 characters. A run with --certify, then `verify-certificate --live`,
 * against it; no artifact of either (every file in the report folder, stdout, stderr) may hold
 * any of the credentials in any of those forms, any 8 characters of one, or its start before a cut.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';
import { rpcReply, startHostile, type HostileServer, type SeenRequest } from '../support/hostile';
import { capture } from '../support/sink';

const BEARER = 'sk_live_T0ken/Q7xW2kLm+9PzR';
const API_KEY = 'AKx9-77-ZZqq-pp11-wv';
const PATH_KEY = 'q7Xw2kLm9PzR4tYb';
/** A letters-only value in a query parameter whose name says nothing of a key. */
const LETTERS_KEY = 'kqwertasdfzxcvmn';
const FRAGMENT_KEY = 'FRAGk3y9Zz77aaQ';
/** The Action's `secrets` input, mixing both separators action.yml allows. */
const ACTION_SECRETS = ['tenantalpha9x', 'tenantbeta8yy', 'tenantgamma7z'];
const SECRETS = [BEARER, API_KEY, PATH_KEY, LETTERS_KEY, FRAGMENT_KEY, ...ACTION_SECRETS];

const percentEveryByte = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
/** Python's quote(s, safe='/'). */
const pythonQuote = (s: string) => encodeURIComponent(s).replace(/%2F/gi, '/');
const base64 = (s: string) => Buffer.from(s).toString('base64');
const base64url = (s: string) => Buffer.from(s).toString('base64url');
const phpEscaped = (s: string) => s.replace(/\//g, '\\/');
const htmlEntities = (s: string) => [...s].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join('');
const htmlDecimal = (s: string) => [...s].map((c) => `&#${c.charCodeAt(0)};`).join('');
const hex = (s: string) => Buffer.from(s).toString('hex');

/** Every form of a secret the target echoes (and the test looks for): its JSON forms, and what its JSON bodies (with PHP's `\/`) make of the others. */
function formsOf(s: string): string[] {
  return [...valuesOf(s), JSON.stringify(s).slice(1, -1), phpEscaped(s)];
}

/** The forms the target puts in its JSON bodies' strings, which its JSON encoder (PHP's) then escapes. */
function valuesOf(s: string): string[] {
  return [
    s,
    percentEveryByte(s),
    percentEveryByte(s).toLowerCase(),
    encodeURIComponent(s),
    new URLSearchParams({ k: s }).toString().slice(2),
    pythonQuote(s),
    htmlEntities(s),
    htmlDecimal(s),
    `0x${hex(s)}`,
    hex(s).toUpperCase(),
    base64(s),
    base64url(s),
    // At the other byte offsets, as inside a longer encoded text.
    base64(`{"${s}`),
    base64url(`x${s}`),
  ];
}

let calls = 0;
function answer(req: SeenRequest) {
  calls++;
  const forms = SECRETS.flatMap(valuesOf);
  // As member names and as values, in a body JSON-encoded with PHP's escapes.
  const members = Object.fromEntries(forms.map((f, i) => [f, `${f} ${forms[(i + 1) % forms.length]}`]));
  const json = JSON.stringify({ tokens: [{ contract_address: forms.join(' '), ...members }], code: 3, message: forms.join(' '), details: [members] }).replace(
    /\//g,
    '\\/',
  );
  const headers = Object.fromEntries(SECRETS.flatMap((s) => [s, percentEveryByte(s), pythonQuote(s)]).map((f, i) => [`x-echo-${i}`, f] as [string, string]));
  if (req.method !== 'POST') {
    // Every other answer: a long text/plain body, each secret placed so that some 200-character cut falls inside it.
    if (calls % 2 === 0) {
      const pad = 'x'.repeat(150 + (calls % 60));
      return {
        status: 400,
        headers: { ...headers, 'content-type': 'text/plain' },
        body: SECRETS.map((s) => `${pad}?apikey=${s}&${formsOf(s).join(' ')}`).join('\n'),
      };
    }
    return { status: calls % 3 === 0 ? 400 : 200, headers, body: json };
  }
  return {
    ...rpcReply(req, () =>
      calls % 2 === 0 ? { error: { code: -32000, message: forms.join(' '), data: members } } : { result: `0x${'00'.repeat(32)}`, echo: members },
    ),
    headers,
  };
}

function reportFiles(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [`${path.basename(dir)}/${f}`, readFileSync(path.join(dir, f), 'utf8')]));
}

describe('a target echoing every credential in every form', () => {
  let server: HostileServer;
  beforeAll(async () => {
    server = await startHostile(answer);
  });
  afterAll(() => server.close());

  it('no artifact of a run or of verify-certificate --live holds any of them', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'echo-'));
    const baseUrl = `${server.origin}/tenant/${PATH_KEY}`;
    const rpcUrl = `${server.origin}/rpc?tenant=${LETTERS_KEY}#apikey=${FRAGMENT_KEY}`;
    const env = {
      RPC_HEADERS: `Authorization: Bearer ${BEARER}`,
      REST_HEADERS: `X-Api-Key: ${API_KEY}`,
      SECRETS: `${ACTION_SECRETS[0]},${ACTION_SECRETS[1]}\n${ACTION_SECRETS[2]}`,
    };
    const out = capture();
    const err = capture();
    const argv = ['--base-url', baseUrl, '--rpc-url', rpcUrl, '--only', 'rest,rpc', '--certify', '--samples', '2', '--timeout-ms', '3000', '--report-dir', dir];
    const code = await main(argv, env, { out: out.stream, err: err.stream });
    expect(readdirSync(dir)).toContain('results.json');
    const liveOut = capture();
    const liveErr = capture();
    const liveCode = await main(
      ['verify-certificate', dir, '--allow-self-reported', '--live', '--base-url', baseUrl, '--rpc-url', rpcUrl, '--timeout-ms', '3000'],
      env,
      {
        out: liveOut.stream,
        err: liveErr.stream,
      },
    );
    // The target really was sent (and so could echo) the credentials, and --live really re-checked it.
    const sent = server.seen.map((r) => `${r.url} ${JSON.stringify(r.headers)}`).join('\n');
    for (const s of [BEARER, API_KEY, PATH_KEY, LETTERS_KEY]) expect(sent).toContain(s);
    expect(liveOut.text()).toMatch(/live \(certificate self-reported\): re-ran \d+ certified check/);

    const artifacts: Record<string, string> = {
      ...reportFiles(dir),
      stdout: out.text(),
      stderr: err.text(),
      'verify-certificate stdout': liveOut.text(),
      'verify-certificate stderr': liveErr.text(),
    };
    const leaks: string[] = [];
    for (const secret of SECRETS) {
      const fragments = Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8));
      const cutEdges = Array.from({ length: secret.length - 6 }, (_, i) => `${secret.slice(0, 6 + i)}…`);
      for (const [name, text] of Object.entries(artifacts)) {
        const lower = text.toLowerCase();
        for (const f of [...formsOf(secret), ...fragments, ...cutEdges]) if (lower.includes(f.toLowerCase())) leaks.push(`${name}: ${JSON.stringify(f)}`);
      }
    }
    expect(leaks).toEqual([]);
    // What was judged still reads: the run ended with a verdict and every report, and the target line is masked by the one rule.
    expect([1, 3]).toContain(code);
    expect([0, 1, 3]).toContain(liveCode);
    expect(out.text()).toContain(`target: REST ${server.origin}/tenant/***, JSON-RPC ${server.origin}/rpc?tenant=***`);
  }, 180_000);
});
