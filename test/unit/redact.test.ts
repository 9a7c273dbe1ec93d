import { Redactor, REDACTED } from '../../src/harness/redact';

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
