import { ConfigError, DEFAULTS, loadConfig, parseDuration } from '../../src/harness/config';

const load = (argv: string[], env: NodeJS.ProcessEnv = {}) => loadConfig(argv, env);

describe('loadConfig', () => {
  it('defaults to the embedded target, the dedicated profile and every group', () => {
    const c = load([]);
    expect(c.embedded).toBe(true);
    expect(c.profile).toBe('dedicated');
    expect([...c.only].sort()).toEqual(['cross', 'preconf', 'rest', 'rpc']);
    expect(c.timeoutMs).toBe(DEFAULTS.timeoutMs);
    expect(c.maxSpendWei).toBe(DEFAULTS.maxSpendWei);
  });

  it('takes flags over environment variables', () => {
    const c = load(['--rpc-url', 'http://127.0.0.1:1/'], { RPC_URL: 'http://127.0.0.1:2', BASE_URL: 'http://127.0.0.1:3', RPC_PROFILE: 'public' });
    expect(c.rpcUrl).toBe('http://127.0.0.1:1');
    expect(c.baseUrl).toBe('http://127.0.0.1:3');
    expect(c.profile).toBe('public');
    expect(c.embedded).toBe(false);
  });

  it('splits headers for REST and RPC; --header goes to both', () => {
    const c = load(['--header', 'X-Common: 1', '--rpc-header', 'Authorization: Bearer abc', '--rest-header', 'X-Rest: yes']);
    expect(c.rpcHeaders).toEqual({ 'X-Common': '1', Authorization: 'Bearer abc' });
    expect(c.restHeaders).toEqual({ 'X-Common': '1', 'X-Rest': 'yes' });
    expect(load([], { RPC_HEADERS: 'A: 1\nB: two: parts' }).rpcHeaders).toEqual({ A: '1', B: 'two: parts' });
  });

  it.each([
    [['--profile', 'private'], /--profile \(or RPC_PROFILE\)/],
    [['--base-url', 'ftp://x'], /--base-url/],
    [['--rpc-url', 'not a url'], /--rpc-url/],
    [['--timeout-ms', '0'], /--timeout-ms/],
    [['--only', 'rest,graphql'], /--only.*graphql/],
    [['--grep', '('], /--grep/],
    [['--nav-max-age', 'soon'], /--nav-max-age/],
    [['--max-spend-wei', '-1'], /--max-spend-wei/],
    [['--header', 'no colon here'], /--header/],
    [['--bogus'], /bogus/],
  ])('rejects %j with a message naming the flag', (argv, message) => {
    expect(() => load(argv as string[])).toThrow(ConfigError);
    expect(() => load(argv as string[])).toThrow(message);
  });

  it('names the environment variable when the bad value came from there', () => {
    expect(() => load([], { TIMEOUT_MS: 'abc' })).toThrow(/TIMEOUT_MS/);
  });

  it('never echoes a malformed signer key', () => {
    const bad = '0x1234deadbeef';
    try {
      load(['--signer-key', bad]);
      throw new Error('accepted a bad key');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).not.toContain('deadbeef');
    }
  });
});

describe('parseDuration', () => {
  it.each([
    ['90', 90],
    ['90s', 90],
    ['15m', 900],
    ['36h', 129600],
    ['2d', 172800],
    ['1.5h', 5400],
  ])('%s = %d s', (s, n) => expect(parseDuration(s, 'x', '')).toBe(n));
});

describe('URL credentials', () => {
  it('become a Basic Authorization header, and the URL loses them (fetch refuses them)', () => {
    const c = load(['--rpc-url', 'https://alice:s3cr%40t@node.example/rpc/']);
    expect(c.rpcUrl).toBe('https://node.example/rpc');
    expect(c.rpcHeaders.Authorization).toBe(`Basic ${Buffer.from('alice:s3cr@t').toString('base64')}`);
    expect(c.restHeaders.Authorization).toBeUndefined();
  });

  it('a malformed URL is never echoed (it may carry a key)', () => {
    expect(() => load(['--rpc-url', 'node.example/v2/SECRETKEY123'])).toThrow(/value not shown/);
    expect(() => load(['--rpc-url', 'node.example/v2/SECRETKEY123'])).not.toThrow(/SECRETKEY123/);
  });
});
