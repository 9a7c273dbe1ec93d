import { spawnSync } from 'node:child_process';
import { Redactor, REDACTED } from '../../src/harness/redact';
import { curlLine } from '../../src/harness/transcript';

describe('Redactor', () => {
  const key = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

  it('removes a registered secret wherever it appears, with or without 0x', () => {
    const r = new Redactor().add(key);
    expect(r.text(`key=${key} raw=${key.slice(2)}`)).toBe(`key=${REDACTED} raw=${REDACTED}`);
  });

  it('always hides credential headers, and registers their values for bodies too', () => {
    const r = new Redactor().addHeaders({ Authorization: 'Bearer s3cr3t-token', 'X-Trace': 'abc' });
    expect(r.headers({ Authorization: 'Bearer s3cr3t-token', 'X-Trace': 'abc', 'x-api-key': 'zzzz' })).toEqual({ Authorization: REDACTED, 'X-Trace': 'abc', 'x-api-key': REDACTED });
    expect(r.text('echo: Bearer s3cr3t-token')).toBe(`echo: ${REDACTED}`);
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
      .addTarget({ urlVar: 'RPC_URL', url: RPC, headerVar: 'RPC_HEADER', headers: { 'X-Trace': 'plain', Authorization: 'Bearer rpc-s3cret', 'X-Tenant': 'k3y9-tenant' } });

  function line(r: Redactor, req: { method: string; url: string; headers: Record<string, string>; body?: string }): string {
    const shown = { method: req.method, url: r.text(req.url), headers: r.headers(req.headers), ...(req.body ? { body: r.text(req.body) } : {}) };
    return curlLine(shown, r.curlVariables(req));
  }

  const rpcRequest = { method: 'POST', url: RPC, headers: { 'content-type': 'application/json', 'X-Trace': 'plain', Authorization: 'Bearer rpc-s3cret', 'X-Tenant': 'k3y9-tenant' }, body: '{"id":1}' };
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
    return spawnSync(sh, ['-c', `curl() { for a in "$@"; do printf '%s\\n' "$a"; done; }\n${curl}`], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  it.each(['sh', 'bash'])('in %s, with the variables exported the line sends exactly the original request', (sh) => {
    const out = shell(sh, line(redactor(), rpcRequest), { RPC_URL: RPC, RPC_HEADER_1: 'Authorization: Bearer rpc-s3cret', RPC_HEADER_2: 'X-Tenant: k3y9-tenant' });
    expect(out.status).toBe(0);
    expect(out.stdout.split('\n')).toEqual(['-sS', '-i', '-X', 'POST', '-H', 'content-type: application/json', '-H', 'X-Trace: plain', '-H', 'Authorization: Bearer rpc-s3cret', '-H', 'X-Tenant: k3y9-tenant', '--data-raw', '{"id":1}', RPC, '']);
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
