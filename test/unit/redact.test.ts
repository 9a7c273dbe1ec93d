import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Egress } from '../../src/cli/egress';
import { cutBytes, JsonTooDeep, mapJson, MAX_JSON_DEPTH, parseJson, show } from '../../src/harness/json';
import { publicUrl, Redactor, REDACTED } from '../../src/harness/redact';
import { looksLikeKey } from '../../src/harness/url-parts';
import { curlLine } from '../../src/harness/transcript';

describe('Redactor', () => {
  const key = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

  it('masks member names in an answer array of 200 000 objects, deep in a stack, without overflowing it (a spread into push() did)', () => {
    const r = new Redactor().add('sk_live_SECRET123');
    const answer = Array.from({ length: 200_000 }, (_, i) => ({ i }));
    answer.push({ sk_live_SECRET123: 1 } as never);
    const deep = (n: number): unknown => (n === 0 ? r.value(answer) : deep(n - 1));
    const masked = deep(2000) as Array<Record<string, unknown>>;
    expect(Object.keys(masked[masked.length - 1]!)).toEqual([REDACTED]);
  });

  it('removes a registered secret wherever it appears, with or without 0x', () => {
    const r = new Redactor().add(key);
    expect(r.text(`key=${key} raw=${key.slice(2)}`)).toBe(`key=${REDACTED} raw=${REDACTED}`);
  });

  it('always hides credential headers, and registers their values for bodies too', () => {
    const r = new Redactor().addHeaders({ Authorization: 'Bearer s3cr3t-token', 'X-Trace': 'abc' });
    expect(r.headers({ Authorization: 'Bearer s3cr3t-token', 'X-Trace': 'abc', 'x-api-key': 'zzzz' })).toEqual({
      Authorization: REDACTED,
      'X-Trace': 'abc',
      'x-api-key': REDACTED,
    });
    expect(r.text('echo: Bearer s3cr3t-token')).toBe(`echo: Bearer ${REDACTED}`);
  });

  it('finds credentials in URLs: userinfo, key query parameters, key-like path segments', () => {
    const r = new Redactor()
      .addUrl('https://user:p4ssw0rd@node.example/rpc?apikey=AbCdEf123456&chain=1')
      .addUrl('https://provider.example/v2/k3yK3yK3yK3yK3yK3yK3yK3yK3y');
    const s = r.text('https://user:p4ssw0rd@node.example/rpc?apikey=AbCdEf123456&chain=1 https://provider.example/v2/k3yK3yK3yK3yK3yK3yK3yK3yK3y');
    expect(s).not.toMatch(/p4ssw0rd|AbCdEf123456|k3yK3y/);
    expect(s).toContain('chain=1');
  });

  it('leaves ordinary URL paths alone', () => {
    const r = new Redactor().addUrl('http://127.0.0.1:8545/v1/tokenized-stocks');
    expect(r.text('http://127.0.0.1:8545/v1/tokenized-stocks')).toBe('http://127.0.0.1:8545/v1/tokenized-stocks');
  });

  it('deep-redacts result documents', () => {
    const r = new Redactor().add('topsecret');
    expect(r.value({ a: ['x topsecret'], b: { c: 'topsecret' }, n: 1 })).toEqual({ a: [`x ${REDACTED}`], b: { c: REDACTED }, n: 1 });
  });

  it('ignores secrets too short to redact safely', () => {
    expect(new Redactor().add('ab').text('abc')).toBe('abc');
  });
});

describe('Redactor, percent-encoded credentials', () => {
  it('hides query keys and passwords both as written and decoded', () => {
    const url = 'https://u:p%40ssw0rd@node.example/rpc?apikey=ab%2Bcd%2Fef123&x=1';
    const r = new Redactor().addUrl(url);
    const s = r.text(`${url} p@ssw0rd ab+cd/ef123`);
    expect(s).not.toMatch(/p%40ssw0rd|p@ssw0rd|ab%2Bcd%2Fef123|ab\+cd\/ef123/);
    expect(s).toContain('x=1');
  });
});

describe('curl lines that still work: shell variables where a secret was', () => {
  const RPC = 'http://127.0.0.1:9/rpc/k3y9';
  const BASE = 'http://127.0.0.1:9/api/k3y9';
  const redactor = () =>
    new Redactor()
      .add('k3y9') // a short path key, as --secret gives it
      .addTarget({ urlVar: 'BASE_URL', url: BASE, headerVar: 'REST_HEADER', headers: { 'X-Trace': 'plain', 'X-Api-Key': 'rest-s3cret' } })
      .addTarget({
        urlVar: 'RPC_URL',
        url: RPC,
        headerVar: 'RPC_HEADER',
        headers: { 'X-Trace': 'plain', Authorization: 'Bearer rpc-s3cret', 'X-Tenant': 'k3y9-tenant' },
      });

  function line(r: Redactor, req: { method: string; url: string; headers: Record<string, string>; body?: string }): string {
    const shown = { method: req.method, url: r.text(req.url), headers: r.headers(req.headers), ...(req.body ? { body: r.text(req.body) } : {}) };
    return curlLine(shown, r.curlVariables(req));
  }

  const rpcRequest = {
    method: 'POST',
    url: RPC,
    headers: { 'content-type': 'application/json', 'X-Trace': 'plain', Authorization: 'Bearer rpc-s3cret', 'X-Tenant': 'k3y9-tenant' },
    body: '{"id":1}',
  };
  const restRequest = { method: 'GET', url: `${BASE}/v1/tokenized-stocks`, headers: { 'X-Trace': 'plain', 'X-Api-Key': 'rest-s3cret' } };

  it('names the URL and each secret header by variable, never by value, and keeps the rest literal', () => {
    const rpc = line(redactor(), rpcRequest);
    expect(rpc).toBe(
      `curl -sS -i -X POST -H 'content-type: application/json' -H 'X-Trace: plain' -H "\${RPC_HEADER_1:?export RPC_HEADER_1: your Authorization header line, Name: value}" -H "\${RPC_HEADER_2:?export RPC_HEADER_2: your X-Tenant header line, Name: value}" --data-raw '{"id":1}' "\${RPC_URL:?export RPC_URL: the JSON-RPC URL you gave}"`,
    );
    const rest = line(redactor(), restRequest);
    expect(rest).toContain(`"\${BASE_URL:?export BASE_URL: the REST base URL you gave}"'/v1/tokenized-stocks'`);
    expect(rest).toContain('-H "${REST_HEADER_1:?');
    for (const l of [rpc, rest]) {
      expect(l).not.toMatch(/s3cret|k3y9/);
      expect(l).not.toContain(REDACTED);
    }
  });

  it('leaves a request with no secret exactly as before', () => {
    const r = new Redactor().addTarget({ urlVar: 'RPC_URL', url: 'http://127.0.0.1:9', headerVar: 'RPC_HEADER', headers: {} });
    const req = { method: 'POST', url: 'http://127.0.0.1:9', headers: { 'content-type': 'application/json' }, body: '{}' };
    expect(line(r, req)).toBe(curlLine(req));
  });

  it('keeps *** in bodies: only the URL and headers become variables', () => {
    const l = line(redactor(), { ...rpcRequest, body: '{"key":"k3y9"}' });
    expect(l).toContain(`--data-raw '{"key":"${REDACTED}"}'`);
  });

  /** Runs the line in a shell with `curl` replaced by a function that prints its arguments. */
  function shell(sh: string, curl: string, env: Record<string, string>) {
    return spawnSync(sh, ['-c', `curl() { for a in "$@"; do printf '%s\\n' "$a"; done; }\n${curl}`], {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  it.each(['sh', 'bash'])('in %s, with the variables exported the line sends exactly the original request', (sh) => {
    const out = shell(sh, line(redactor(), rpcRequest), {
      RPC_URL: RPC,
      RPC_HEADER_1: 'Authorization: Bearer rpc-s3cret',
      RPC_HEADER_2: 'X-Tenant: k3y9-tenant',
    });
    expect(out.status).toBe(0);
    expect(out.stdout.split('\n')).toEqual([
      '-sS',
      '-i',
      '-X',
      'POST',
      '-H',
      'content-type: application/json',
      '-H',
      'X-Trace: plain',
      '-H',
      'Authorization: Bearer rpc-s3cret',
      '-H',
      'X-Tenant: k3y9-tenant',
      '--data-raw',
      '{"id":1}',
      RPC,
      '',
    ]);
    const rest = shell(sh, line(redactor(), restRequest), { BASE_URL: BASE, REST_HEADER_1: 'X-Api-Key: rest-s3cret' });
    expect(rest.stdout.split('\n').slice(-2)).toEqual([`${BASE}/v1/tokenized-stocks`, '']);
  });

  it.each(['sh', 'bash'])('in %s, without them it stops before sending and says what to export', (sh) => {
    const out = shell(sh, line(redactor(), rpcRequest), {});
    expect(out.status).not.toBe(0);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/export RPC_HEADER_1: your Authorization header line/);
  });
});

describe('Redactor: every form a target may echo', () => {
  it('tells keys from words in paths and queries', () => {
    for (const key of [
      'q7Xw2kLm9PzR4tYb',
      'QKEY987654321',
      '550e8400-e29b-41d4-a716-446655440000',
      'sk_live_q7Xw2kLm9P',
      'ac0974bec39a17e36ba4a6b4d238ff94',
      'aB3_x9-kQ2mZ-u7_Lp0-wq',
    ])
      expect([key, looksLikeKey(key)]).toEqual([key, true]);
    for (const word of ['v1', 'v2', 'rpc', 'tokenized-stocks', 'base-sepolia', 'eth-mainnet', '84532', 'jsonrpc', 'api'])
      expect([word, looksLikeKey(word)]).toEqual([word, false]);
  });

  it('registers the token after an auth scheme, and for Basic the password and the pair as sent, never the user name (no secret), leaving the scheme word readable', () => {
    const pair = Buffer.from('alice.smith:hunter2pass').toString('base64');
    const r = new Redactor().addHeaders({ Authorization: 'Bearer sk_live_T0ken123', 'Proxy-Authorization': `Basic ${pair}` });
    expect(r.text(`token sk_live_T0ken123, user alice.smith, password hunter2pass, Bearer, Basic ${pair}`)).toBe(
      `token ${REDACTED}, user alice.smith, password ${REDACTED}, Bearer, Basic ${REDACTED}`,
    );
  });

  it.each(['test', 'node', 'root', 'public', 'read', 'status'])('a Basic user named %s is shown: only its password is masked', (user) => {
    const r = new Redactor().addUrl(`https://${user}:s3cret-pass@node.example/rpc`);
    expect(r.text(`user ${user}, status failed, password s3cret-pass`)).toBe(`user ${user}, status failed, password ${REDACTED}`);
  });

  it('registers key-like tokens of any configured header, not its plain words', () => {
    const r = new Redactor().addHeaders({ 'X-Tenant-Auth': 'tenant q7Xw2kLm9PzR4tYb', Accept: 'application/json' });
    expect(r.text('tenant q7Xw2kLm9PzR4tYb application/json')).toBe(`tenant ${REDACTED} application/json`);
  });

  it('finds a 16-character path key and a key-like query value without --secret', () => {
    const r = new Redactor().addUrl('http://127.0.0.1:9/v2/q7Xw2kLm9PzR4tYb?chain=base&session=Z9y8X7w6V5u4');
    expect(r.text('/v2/q7Xw2kLm9PzR4tYb?chain=base&session=Z9y8X7w6V5u4')).toBe(`/v2/${REDACTED}?chain=base&session=${REDACTED}`);
  });

  it('hides every registered form as sent, URL-encoded and JSON-escaped, and a 0x value without its prefix; another letter case is no echo of it', () => {
    const r = new Redactor().add('p@ss"w0rd/x1').add('0xAbCdEf0123456789');
    const text = `p%40ss%22w0rd%2Fx1 p@ss\\"w0rd/x1 AbCdEf0123456789 P@SS"W0RD/X1`;
    expect(r.text(text)).toBe(`${REDACTED} ${REDACTED} ${REDACTED} P@SS"W0RD/X1`);
  });

  it('hides the start of a secret that a cut left before the cut mark', () => {
    const r = new Redactor().add('QKEY987654321zz');
    const message = show(`${'x'.repeat(184)}?apikey=QKEY987654321zz&more`);
    expect(message).toContain('apikey=QKEY');
    expect(r.text(message)).toMatch(/apikey=\*\*\*…$/);
    expect(r.text(message)).not.toContain('QKEY');
    // A cut shorter than 4 characters of it says nothing recognisable: left as it is.
    expect(r.text('apikey=QKE…')).toBe('apikey=QKE…');
  });

  it('renders a target URL for publication: userinfo, non-plain path segments and every query value masked', () => {
    const r = new Redactor().add('tenant');
    expect(r.publicUrl('https://u:p@node.example/v2/q7Xw2kLm9PzR4tYb/rpc?apikey=abc&chain=base#frag')).toBe(
      `https://${REDACTED}:${REDACTED}@node.example/v2/${REDACTED}/rpc?apikey=${REDACTED}&chain=${REDACTED}`,
    );
    // A key with no digit is no plain word: masked like any other.
    expect(r.publicUrl('https://node.example/v2/abcdefghijklmnopqrstuvwxyzABCDEF')).toBe(`https://node.example/v2/${REDACTED}`);
    expect(r.publicUrl('https://node.example/abc.def/x%2Fy/1234567890')).toBe(`https://node.example/${REDACTED}/${REDACTED}/${REDACTED}`);
    // A plain word that is a registered secret is masked too; a host only when it holds one.
    expect(r.publicUrl('https://node.example/tenant/v1')).toBe(`https://node.example/${REDACTED}/v1`);
    expect(r.publicUrl('https://tenant.node.example/v1')).toBe(`https://${REDACTED}.node.example/v1`);
    expect(r.publicUrl('https://q7xw2klm9pzr.node.example/v1')).toBe('https://q7xw2klm9pzr.node.example/v1');
    for (const plain of [
      'http://127.0.0.1:8545',
      'http://127.0.0.1:8545/',
      'https://base-sepolia.example/v1/tokenized-stocks',
      'https://n.example/api/rpc/84532/eth-mainnet',
      'https://n.example/specs/openapi.yaml',
    ])
      expect(r.publicUrl(plain)).toBe(plain);
    // Its own output comes back unchanged: the certificate can apply it to results.json's target.
    const once = r.publicUrl('https://u@node.example/v2/abcdefghijklmnopqrstuvwxyzABCDEF?key=x&flag');
    expect(once).toBe(`https://${REDACTED}@node.example/v2/${REDACTED}?key=${REDACTED}&flag`);
    expect(publicUrl(once)).toBe(once);
  });

  it('registers every part publicUrl masks, so a target echoing a digitless path key is redacted', () => {
    const r = new Redactor().addUrl('https://node.example/v2/abcdefghijklmnopqrstuvwxyzABCDEF/rpc?chain=base&session=xyzzyplughfoo.bar');
    expect(r.text('unknown key abcdefghijklmnopqrstuvwxyzABCDEF for rpc on base, session xyzzyplughfoo.bar')).toBe(
      `unknown key ${REDACTED} for rpc on base, session ${REDACTED}`,
    );
  });

  it('deep-redacts a value nested 100,000 levels without overflowing the stack, keeping a note where it stops', () => {
    const deep = JSON.parse('['.repeat(100_000) + '"s3cr3t-value"' + ']'.repeat(100_000));
    const out = JSON.stringify(new Redactor().add('s3cr3t-value').value(deep));
    expect(out).toContain(`[nested deeper than ${MAX_JSON_DEPTH} levels: not kept]`);
    expect(out).not.toContain('s3cr3t');
  });

  it('copies values in key order, bigints as decimal strings, "__proto__" as a member', () => {
    const v = JSON.parse('{"b":1,"a":[2,{"__proto__":{"x":3}}]}');
    const out = mapJson({ ...v, n: 10n ** 30n }, (x) => (typeof x === 'bigint' ? x.toString() : x));
    expect(JSON.stringify(out)).toBe('{"b":1,"a":[2,{"__proto__":{"x":3}}],"n":"1000000000000000000000000000000"}');
  });
});

describe('bounded values', () => {
  it('cuts a long text after redaction, stating its whole size', () => {
    const text = `0x${'ab'.repeat(4 * 1024 * 1024)}`;
    const { text: kept, truncated } = cutBytes(text, 4096);
    expect(truncated).toBe(true);
    expect(kept.endsWith('… [cut: 8,388,610 bytes in all]')).toBe(true);
    expect(Buffer.byteLength(kept)).toBeLessThan(4200);
  });

  it('reads JSON only up to MAX_JSON_DEPTH levels', () => {
    expect(parseJson('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH)).json).toBeDefined();
    expect(() => parseJson('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1))).toThrow(JsonTooDeep);
    // Brackets inside strings are text, not nesting.
    expect(parseJson(JSON.stringify(['['.repeat(5000)])).json).toEqual(['['.repeat(5000)]);
  });
});

describe('the egress gate: the closed list masked, reports written as rendered, a line withheld when masking cannot make it safe', () => {
  const SECRET = 'sk_live_T0ken/Q7xW2kLm+9PzR';
  const gate = () => {
    const complaints: string[] = [];
    const g = new Egress(new Redactor().add(SECRET), (line) => void complaints.push(line));
    return { g, complaints };
  };

  it.each([
    ['percent-encoded, every byte', [...Buffer.from(SECRET)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')],
    ['form-encoded, "/" kept', encodeURIComponent(SECRET).replace(/%2F/g, '/')],
    ['base64', Buffer.from(SECRET).toString('base64')],
    ['base64url, unpadded', Buffer.from(SECRET).toString('base64url')],
    ["PHP's \\/ escapes", SECRET.replace(/\//g, '\\/')],
    ['HTML entities', [...SECRET].map((c) => `&#${c.charCodeAt(0)};`).join('')],
  ])('%s: masked', (_, form) => {
    const r = new Redactor().add(SECRET);
    expect(r.text(`before ${form} after`)).toBe(`before ${REDACTED} after`);
  });

  it('masks member names and header names, not only values', () => {
    const r = new Redactor().add(SECRET);
    const b64 = Buffer.from(SECRET).toString('base64');
    expect(r.value({ [b64]: 1, [SECRET]: { ok: 'yes' } })).toEqual({ [REDACTED]: 1, [`${REDACTED}2`]: { ok: 'yes' } });
    expect(r.headers({ [`x-${SECRET}`]: 'v', 'x-echo': 'v' })).toEqual({ [`x-${REDACTED}`]: 'v', 'x-echo': 'v' });
  });

  it('a cut edge that ends in 4 or more characters of a secret counts as a hit', () => {
    const r = new Redactor().add('QKEY987654321zz');
    expect(r.text('…?apikey=QKEY…')).toBe(`…?apikey=${REDACTED}…`);
    expect(r.text('…?apikey=QKE…')).toBe('…?apikey=QKE…');
    expect(r.text('?apikey=QKEY987… and more')).not.toContain('QKEY');
  });

  it('writes a report file as rendered (its outside text was masked when the run was sealed): the suite never masks its own words', () => {
    const { g } = gate();
    const dir = mkdtempSync(path.join(tmpdir(), 'gate-'));
    const own = '{"status":"failed","checks":[{"id":"rpc.x"}]}';
    expect(new Egress(new Redactor().add('failed').add('rpc.x')).writeFile(dir, 'results.json', own)).toBe(path.join(dir, 'results.json'));
    expect(readFileSync(path.join(dir, 'results.json'), 'utf8')).toBe(own);
    expect(g.refused).toEqual([]);
  });

  it('a console line that masking cannot clean is withheld and said on stderr, never quoted; C1 controls are shown inert', () => {
    const lines: string[] = [];
    const complaints: string[] = [];
    // Masking one credential spells another (it holds the mask): the line is withheld whole.
    const g = new Egress(new Redactor().add('pre***post').add('X-secret-Y'), (line) => void complaints.push(line));
    const out = g.stream({ isTTY: false, write: (t: string) => lines.push(t) > 0 }, 'stdout');
    out.write('a preX-secret-Ypost b\n');
    out.write('csi \u009b31m osc \u009d0;x\u0007 colour \u001b[32mok\u001b[0m\n');
    expect(lines).toEqual(['csi \ufffd31m osc \ufffd0;x␇ colour \u001b[32mok\u001b[0m\n']);
    expect(g.refused).toEqual(['a line for stdout']);
    expect(complaints).toHaveLength(1);
    expect(complaints.join('')).not.toMatch(/X-secret-Y|pre\*|post/);
  });

  it('a text masking cannot clean is withheld whole by Redactor.text too (what results.json and the reports are masked with)', () => {
    // Masking one credential spells another (it holds the mask): what is left is never returned.
    const r = new Redactor().add('pre***post').add('X-secret-Y');
    expect(r.mask('a preX-secret-Ypost b').clean).toBe(false);
    expect(r.text('a preX-secret-Ypost b')).toBe('***');
    expect(r.value({ reason: 'a preX-secret-Ypost b' })).toEqual({ reason: '***' });
  });

  it('whatever fails inside the gate, the text is withheld, and the error is never printed', () => {
    const { g, complaints } = gate();
    jest.spyOn(g.redactor, 'mask').mockImplementation(() => {
      throw new Error(`Maximum call stack size exceeded: ${SECRET}`);
    });
    expect(g.pass(`a ${SECRET}`, 'a line for stderr')).toBeUndefined();
    expect(complaints.join('')).toContain('a line for stderr');
    expect(complaints.join('')).not.toContain(SECRET);
  });

  it('registers the raw command line and environment before parsing: Action secrets split on commas and newlines, URL fragments, keys on the wrong flag', () => {
    const g = Egress.forRun(['--sign-key', `0x${'ab12'.repeat(16)}`, '--rpc-url', 'http://h.example/rpc?tenant=lettersonlyvalue#apikey=FRAGk3y9Zz'], {
      SECRETS: 'alpha-one-1,beta-two-2\ngamma-three-3',
    });
    const text = g.pass(`alpha-one-1 beta-two-2 gamma-three-3 ${'ab12'.repeat(16)} lettersonlyvalue FRAGk3y9Zz`, 'test');
    expect(text).toBe(Array(6).fill(REDACTED).join(' '));
  });
});

describe('one way out', () => {
  /**
   * Files that may touch a stream or the file system directly: the gate itself; the process entry
   * that hands it the real streams; `npm run docs`, which rewrites the repository's own pages; and
   * the jest adapter's test file, whose warnings quote results.json as the gate wrote it.
   */
  const ALLOWED = ['src/cli/egress.ts', 'src/cli/main.ts', 'src/cli/docs.ts', 'src/cli/jest/checks.conformance.ts'];
  const DIRECT = /\b(writeFileSync|appendFileSync|createWriteStream|process\.(stdout|stderr)\.write|console\.(log|error|warn|info))\b/;

  it('nothing in src/cli, src/harness or suites writes but through the egress gate', () => {
    const root = path.join(__dirname, '../..');
    const files = ['src/cli', 'src/harness', 'suites'].flatMap((d) =>
      (readdirSync(path.join(root, d), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => path.join(d, f)),
    );
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((f) => !ALLOWED.includes(f) && DIRECT.test(readFileSync(path.join(root, f), 'utf8')))).toEqual([]);
  });

  it("nothing in src/action writes but through src/action/output.ts, the Action's one writer (the gate)", () => {
    const root = path.join(__dirname, '../..');
    const files = readdirSync(path.join(root, 'src/action')).filter((f) => f.endsWith('.ts'));
    expect(files).toContain('main.ts');
    const direct = /\b(writeFileSync|appendFileSync|writeSync|createWriteStream|process\.(stdout|stderr)\.write|console\.(log|error|warn|info)|\.write\()/;
    expect(files.filter((f) => f !== 'output.ts' && direct.test(readFileSync(path.join(root, 'src/action', f), 'utf8')))).toEqual([]);
  });
});

describe('ambient variables named as credentials', () => {
  it('registers their key-like parts, never a plain word such as "true"', () => {
    const g = Egress.forRun([], { HAS_SECRET: 'true', CI_TOKEN: 'ghs_q7Xw2kLm9PzR4tYbAbCd' });
    expect(g.pass('{"archive":true} ghs_q7Xw2kLm9PzR4tYbAbCd', 'test')).toBe(`{"archive":true} ${REDACTED}`);
  });
});

describe('Redactor, remembered masks', () => {
  it('a text masked before a secret was added is masked again against it', () => {
    const r = new Redactor().add('first-secret-value');
    const text = 'answer with second-secret-value and first-secret-value';
    expect(r.text(text)).toBe(`answer with second-secret-value and ${REDACTED}`);
    r.add('second-secret-value');
    expect(r.text(text)).toBe(`answer with ${REDACTED} and ${REDACTED}`);
  });

  it('gives each caller its own result (a caller changing it changes nothing remembered)', () => {
    const r = new Redactor().add('some-secret-value');
    const first = r.mask('x some-secret-value');
    first.text = 'changed';
    expect(r.mask('x some-secret-value').text).toBe(`x ${REDACTED}`);
  });
});
