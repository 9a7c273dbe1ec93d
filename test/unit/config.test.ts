import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, parseDuration } from '../../src/cli/config';
import { DEFAULTS, HELP_EXAMPLES, HELP_GROUPS, helpRows, OPTIONS } from '../../src/cli/options';
import { shellWords } from '../../src/action/words';

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

  it.each([
    [{ DEADLINE_MS: '9999999999' }, /--deadline-ms \(or DEADLINE_MS\): 9999999999 is out of range \(1 to 2147483647\)/],
    [{ TIMEOUT_MS: '9999999999' }, /--timeout-ms \(or TIMEOUT_MS\).*out of range/],
    [{ TIMEOUT_MS: '2147483648' }, /--timeout-ms \(or TIMEOUT_MS\).*out of range/],
    [{ TIMEOUT_MS: '-5' }, /--timeout-ms \(or TIMEOUT_MS\)/],
    [{ TIMEOUT_MS: 'NaN' }, /--timeout-ms \(or TIMEOUT_MS\)/],
    [{ CONCURRENCY: '100000' }, /--concurrency \(or CONCURRENCY\).*out of range/],
    [{ MAX_RPS: '1e9' }, /--max-rps \(or MAX_RPS\)/],
    [{ MAX_RPS: '99999999' }, /--max-rps \(or MAX_RPS\).*out of range/],
    [{ BLOCK_TIME_MS: '5' }, /--block-time \(or BLOCK_TIME_MS\).*out of range/],
    [{ FLASHBLOCK_MS: '5000' }, /--flashblock-ms \(or FLASHBLOCK_MS\).*out of range/],
    [{ NAV_MAX_AGE: '99999999d' }, /--nav-max-age \(or NAV_MAX_AGE\).*out of range/],
    [{ CLOCK_SKEW: '1e3' }, /--clock-skew \(or CLOCK_SKEW\)/],
    [{ MAX_SPEND_WEI: '9'.repeat(80) }, /--max-spend-wei \(or MAX_SPEND_WEI\).*out of range/],
  ])('rejects the number %j out of range, naming the flag and the variable', (env, message) => {
    expect(() => load([], env)).toThrow(ConfigError);
    expect(() => load([], env)).toThrow(message);
  });

  it('accepts the largest timer delay Node can wait', () => {
    expect(load([], { DEADLINE_MS: String(2 ** 31 - 1), TIMEOUT_MS: String(2 ** 31 - 1) }).deadlineMs).toBe(2 ** 31 - 1);
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

describe('empty URLs (a missing CI secret)', () => {
  it.each([
    [{ BASE_URL: '' }, /^BASE_URL is set but empty/],
    [{ RPC_URL: '  ' }, /^RPC_URL is set but empty/],
    [{ BASE_URL: 'http://127.0.0.1:1', RPC_URL: '' }, /^RPC_URL is set but empty/],
  ])('%j is an error naming the variable, never the embedded target', (env, message) => {
    expect(() => load([], env)).toThrow(ConfigError);
    expect(() => load([], env)).toThrow(message);
  });

  it('an empty flag is an error naming the flag', () => {
    expect(() => load(['--base-url', ''])).toThrow(/^--base-url is empty/);
    expect(() => load(['--rpc-url=', '--base-url', 'http://127.0.0.1:1'])).toThrow(/^--rpc-url is empty/);
  });

  it('a flag with a value wins over an empty variable (flags override the environment)', () => {
    expect(load(['--rpc-url', 'http://127.0.0.1:1'], { RPC_URL: '' }).rpcUrl).toBe('http://127.0.0.1:1');
  });

  it('only when neither URL is set at all does the embedded target run', () => {
    expect(load([], {}).embedded).toBe(true);
    expect(load([], { BASE_URL: 'http://127.0.0.1:1' }).embedded).toBe(false);
    expect(load([], { RPC_URL: 'http://127.0.0.1:1' }).embedded).toBe(false);
  });
});

describe('flags and their environment variables', () => {
  /** Flags that only ask a question (--help, --list, --version): no environment variable on purpose. */
  const QUESTIONS: ReadonlySet<string> = new Set(['list', 'help', 'version']);
  it('every flag that configures a run has an environment variable; only the questions and --json (how one command prints, for the script that runs it) do not', () => {
    const without = OPTIONS.filter(([, env]) => !env).map(([flag]) => flag);
    expect(without.sort()).toEqual([...QUESTIONS, 'json'].sort());
    expect(new Set(OPTIONS.map(([, env]) => env).filter(Boolean)).size).toBe(OPTIONS.length - QUESTIONS.size - 1);
  });

  it('HEADERS goes to both targets, one per line', () => {
    const c = load([], { HEADERS: 'X-A: 1\nX-B: 2', RPC_HEADERS: 'X-R: 3' });
    expect(c.restHeaders).toEqual({ 'X-A': '1', 'X-B': '2' });
    expect(c.rpcHeaders).toEqual({ 'X-A': '1', 'X-B': '2', 'X-R': '3' });
  });

  it('-h is --help', () => {
    expect(load(['-h']).help).toBe(true);
  });
});

describe('--secret / SECRETS', () => {
  it('takes repeated flags as given', () => {
    expect(load(['--secret', 'k3y1', '--secret', 'with,comma']).secrets).toEqual(['k3y1', 'with,comma']);
  });

  it('splits SECRETS on commas, or on lines when it has several (a secret may hold a comma)', () => {
    expect(load([], { SECRETS: 'abcd, efgh ,,' }).secrets).toEqual(['abcd', 'efgh']);
    expect(load([], { SECRETS: 'ab,cd\r\nefgh\n' }).secrets).toEqual(['ab,cd', 'efgh']);
  });

  it('flags replace the variable, like every other repeatable flag', () => {
    expect(load(['--secret', 'from-flag'], { SECRETS: 'from-env' }).secrets).toEqual(['from-flag']);
  });

  it('refuses a value too short to redact, without echoing it', () => {
    expect(() => load(['--secret', 'ab1'])).toThrow(/--secret \(or SECRETS\): a value shorter than 4/);
    expect(() => load([], { SECRETS: 'long-enough,zq9' })).toThrow(ConfigError);
    try {
      load(['--secret', 'zq9']);
    } catch (err) {
      expect((err as Error).message).not.toContain('zq9');
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

  it.each([
    ['100%', '100%'],
    ['p%zz', 'p%zz'],
    ['50%25off', '50%off'],
  ])('a password %j with a %% that starts no escape is that character, never a crash (as the masking reads it)', (written, meant) => {
    const c = load(['--rpc-url', `http://user:${written}@127.0.0.1:8545`]);
    expect(c.rpcHeaders.Authorization).toBe(`Basic ${Buffer.from(`user:${meant}`).toString('base64')}`);
  });

  it('a malformed URL is never echoed (it may carry a key)', () => {
    expect(() => load(['--rpc-url', 'http://node example/v2/SECRETKEY123'])).toThrow(/value not shown/);
    expect(() => load(['--rpc-url', 'http://node example/v2/SECRETKEY123'])).not.toThrow(/SECRETKEY123/);
  });

  it.each([
    ['http//127.0.0.1:8545', /the URL's scheme is mistyped \(http\/\/\); did you mean --rpc-url http:\/\/127\.0\.0\.1:8545\?$/],
    ['https:/node.example', /the URL's scheme is mistyped \(https:\/\); did you mean --rpc-url https:\/\/node\.example\?$/],
    ['HTTP:127.0.0.1:8545', /the URL's scheme is mistyped \(HTTP:\); did you mean --rpc-url http:\/\/127\.0\.0\.1:8545\?$/],
    ['"http://127.0.0.1:8545"', /the URL is in quotes; did you mean --rpc-url http:\/\/127\.0\.0\.1:8545\?$/],
    ["'http//127.0.0.1:8545'", /the URL is in quotes; did you mean --rpc-url http:\/\/127\.0\.0\.1:8545\?$/],
  ])('%s is refused with the URL meant, not a scheme added before the mistyped one', (given, said) => {
    expect(() => load(['--rpc-url', given])).toThrow(said);
  });

  it('a URL without a scheme is refused with the corrected value, its key-like parts masked', () => {
    expect(() => load(['--rpc-url', 'localhost:8545'])).toThrow(/no scheme.*did you mean --rpc-url http:\/\/localhost:8545\?$/);
    expect(() => load(['--rpc-url', '127.0.0.1:8545/rpc'])).toThrow(/--rpc-url http:\/\/127\.0\.0\.1:8545\/rpc\?$/);
    expect(() => load(['--rpc-url', 'node.example/v2/SECRETKEY123'])).toThrow(
      /--rpc-url https:\/\/node\.example\/v2\/\*\*\* \(with your own value where \*\*\* stands/,
    );
    expect(() => load(['--rpc-url', 'node.example/v2/SECRETKEY123'])).not.toThrow(/SECRETKEY123/);
    expect(() => load(['--base-url', 'alice:pw@api.example'])).not.toThrow(/alice|pw@/);
  });

  it.each([
    ['http://127.0.0.1:8080/v1/tokenized-stocks', 'http://127.0.0.1:8080'],
    ['http://127.0.0.1:8080/v1/tokenized-stocks/', 'http://127.0.0.1:8080'],
    ['https://api.example/prefix/v1/tokenized-stocks?x=1', 'https://api.example/prefix'],
  ])('a --base-url holding the list path (%s) is refused, naming the base URL to pass', (given, base) => {
    expect(() => load(['--base-url', given])).toThrow(`without the list's path /v1/tokenized-stocks (the suite adds it, spec 4.1): --base-url ${base}`);
  });

  it('credentials in a pasted list URL are masked in the corrected value', () => {
    expect(() => load(['--base-url', 'https://alice:s3cret@api.example/v1/tokenized-stocks'])).toThrow(/--base-url https:\/\/\*\*\*:\*\*\*@api\.example /);
    expect(() => load(['--base-url', 'https://alice:s3cret@api.example/v1/tokenized-stocks'])).not.toThrow(/alice|s3cret/);
  });
});

describe('did you mean', () => {
  it('names the flag meant for a mistyped one', () => {
    expect(() => load(['--rpc-ulr', 'http://127.0.0.1:8545'])).toThrow('unknown flag --rpc-ulr (did you mean --rpc-url?)');
    expect(() => load(['--base-ur=http://127.0.0.1:1'])).toThrow('unknown flag --base-ur (did you mean --base-url?)');
    expect(() => load(['--frobnicate'])).toThrow(/^unknown flag --frobnicate \(see --help\)$/);
  });

  it('names the group, profile and --require value meant', () => {
    expect(() => load(['--only', 'rest,rcp'])).toThrow('"rcp" is not one of rest, rpc, cross, preconf (did you mean rpc?)');
    expect(() => load([], { RPC_PROFILE: 'pubic' })).toThrow('(did you mean public?)');
    expect(() => load(['--require', 'ful'])).toThrow('(did you mean full?)');
  });

  it('reads --profile in any case and with blanks around it, as --require and --only are read', () => {
    expect(load(['--rpc-url', 'http://127.0.0.1:1', '--profile', 'Public']).profile).toBe('public');
    expect(load(['--rpc-url', 'http://127.0.0.1:1'], { RPC_PROFILE: ' DEDICATED ' }).profile).toBe('dedicated');
  });

  it.each(['on', 'y', 'ture', ' 1x'])(
    'refuses CERTIFY=%j as it refuses a mistyped ARCHIVE or EMBEDDED: never a run that silently certifies nothing',
    (value) => {
      expect(() => load(['--rpc-url', 'http://127.0.0.1:1'], { CERTIFY: value })).toThrow(
        /--certify \(or CERTIFY\): ".*" is not one of 1, true, yes, 0, false, no/,
      );
    },
  );
});

describe('--require', () => {
  it('defaults to none; full from the flag or REQUIRE', () => {
    expect(load([]).require).toBe('none');
    expect(load(['--require', 'full']).require).toBe('full');
    expect(load([], { REQUIRE: 'full' }).require).toBe('full');
    expect(() => load(['--require', 'all'])).toThrow(ConfigError);
  });
});

describe('under CI a run never passes on nothing', () => {
  it.each([[{ CI: 'true' }], [{ CI: '1' }], [{ GITHUB_ACTIONS: 'true' }]])('%j with no URL is a configuration error naming --embedded', (env) => {
    expect(() => load([], env)).toThrow(ConfigError);
    expect(() => load([], env)).toThrow(/no target under CI.*--embedded/);
  });

  it('--embedded or EMBEDDED=1 asks for the reference on purpose; outside CI it stays the default', () => {
    expect(load(['--embedded'], { CI: 'true' }).embedded).toBe(true);
    expect(load([], { CI: 'true', EMBEDDED: '1' }).embedded).toBe(true);
    expect(load([], { CI: 'false' }).embedded).toBe(true);
    expect(load([], {}).embedded).toBe(true);
  });

  it('questions (--list, --help, --version) need no target', () => {
    expect(load(['--list'], { CI: 'true' }).list).toBe(true);
    expect(load(['--help'], { CI: 'true' }).help).toBe(true);
  });

  it('EMBEDDED takes a boolean', () => {
    expect(() => load([], { CI: 'true', EMBEDDED: 'maybe' })).toThrow(/--embedded \(or EMBEDDED\): "maybe" is not one of/);
    expect(() => load([], { CI: 'true', EMBEDDED: '0' })).toThrow(/no target under CI/);
  });

  it('--embedded beside a URL is a contradiction', () => {
    expect(() => load(['--embedded', '--base-url', 'http://127.0.0.1:1'])).toThrow(/--embedded .*leave out/);
  });
});

describe('near-miss variables', () => {
  it.each([
    ['BASEURL', 'BASE_URL'],
    ['RPCURL', 'RPC_URL'],
    ['BASE_URI', 'BASE_URL'],
    ['base_url', 'BASE_URL'],
    ['SIGNER_KEY', 'SIGNER_PRIVATE_KEY'],
    ['REPORTS_DIR', 'REPORT_DIR'],
    ['SIGN_KEY', 'CERT_SIGN_KEY_FILE'],
  ])('%s is named with the right spelling %s: exit 2 under CI, a warning outside it', (given, meant) => {
    const value = given.includes('KEY') ? `0x${'1'.repeat(64)}` : 'https://api.staging.example';
    expect(() => load([], { CI: 'true', [given]: value })).toThrow(new RegExp(`^${given} is set, but the suite reads ${meant}: did you mean ${meant}\\?`));
    const c = load([], { [given]: value });
    expect(c.warnings).toEqual([`warning: ${given} is set, but the suite reads ${meant}: did you mean ${meant}?`]);
    // The value is never echoed.
    expect(c.warnings.join()).not.toContain(value);
  });

  it('the common variables of a shell or a CI runner are never flagged', () => {
    const env = {
      PATH: '/usr/bin',
      HOME: '/home/u',
      HOSTNAME: 'h',
      NODE_ENV: 'test',
      GITHUB_SHA: 'abc',
      RUNNER_TEMP: '/tmp',
      REST_HEADER_1: 'X-Api-Key: k',
      RPC_HEADER_1: 'X-Api-Key: k',
      HEADER: 'x',
      SECRET: 'x',
      PROFILE: 'x',
      LANG: 'C',
      SHELL: '/bin/sh',
      TERM: 'xterm',
      USER: 'u',
      PWD: '/',
    };
    expect(load([], env).warnings).toEqual([]);
    expect(() => load(['--embedded'], { ...env, CI: 'true' })).not.toThrow();
  });

  it('a near miss beside the right variable is only a warning, even under CI', () => {
    expect(load([], { CI: 'true', BASE_URL: 'http://127.0.0.1:1', BASEURL: 'http://127.0.0.1:1' }).warnings).toHaveLength(1);
  });
});

describe('keys are never printed', () => {
  const txKey = `0x${'ab'.repeat(32)}`;
  it.each([
    [['--sign-key', txKey], {}],
    [['--certify', '--sign-key', txKey], {}],
    [['--certify'], { CERT_SIGN_KEY_FILE: txKey }],
  ])('a transaction key given to %j / %j: did you mean --signer-key, not echoed', (argv, env) => {
    expect(() => load(argv, env)).toThrow(/looks like a transaction key.*did you mean --signer-key/);
    try {
      load(argv, env);
    } catch (err) {
      expect((err as Error).message).not.toContain('abab');
    }
  });

  it.each([
    [['--profile', txKey]],
    [['--max-spend-wei', txKey]],
    [['--only', txKey]],
    [['--timeout-ms', txKey]],
    [['--nav-max-age', txKey]],
    [['--require', txKey.slice(2)]],
  ])('a key pasted into another flag (%j) is refused without being printed', (argv) => {
    expect(() => load(argv)).toThrow(/the value \(not shown: it looks like a key\)/);
    try {
      load(argv);
    } catch (err) {
      expect((err as Error).message).not.toContain('abab');
    }
  });

  it('a transaction key in CERT_SIGN_KEY: did you mean SIGNER_PRIVATE_KEY', () => {
    expect(() => load(['--certify'], { CERT_SIGN_KEY: txKey })).toThrow(/looks like a transaction key.*did you mean SIGNER_PRIVATE_KEY/);
  });

  it('PEM text in CERT_SIGN_KEY_FILE: this variable takes a path, the key not shown', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIPRIVATEPRIVATEPRIVATEPRIVATEPRIVATE\n-----END PRIVATE KEY-----\n';
    for (const env of [{ CERT_SIGN_KEY_FILE: pem }, { CERT_SIGN_KEY_FILE: pem, CERTIFY: '1' }]) {
      try {
        load([], env);
        throw new Error('accepted');
      } catch (err) {
        expect((err as Error).message).toMatch(/CERT_SIGN_KEY_FILE: this variable takes a path/);
        expect((err as Error).message).not.toMatch(/PRIVATE/);
      }
    }
  });
});

describe('--help', () => {
  it('puts every flag in a section, once', () => {
    const named = HELP_GROUPS.flatMap(([, flags]) => flags);
    expect([...named].sort()).toEqual(OPTIONS.map(([f]) => f).sort());
    expect(new Set(named).size).toBe(named.length);
    const rows = helpRows();
    for (const heading of [
      'target:',
      'credentials:',
      'selection and judging:',
      'certification:',
      'reports:',
      'reference knobs (the embedded reference target):',
    ])
      expect(rows).toContain(heading);
    expect(rows).not.toContain('other:');
  });

  /** A real certificate signing key where an example names key.pem. */
  const signingPem = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'help-example-'));
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(path.join(dir, 'key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    return path.join(dir, 'key.pem');
  };

  it('ends with examples that are valid invocations', () => {
    expect(HELP_EXAMPLES.length).toBeGreaterThanOrEqual(3);
    for (const example of HELP_EXAMPLES) {
      for (const command of example.split('#')[0].split('&&')) {
        const words = shellWords(command.replace('"$KEY"', `0x${'1'.repeat(64)}`).replace(/\bkey\.pem\b/, signingPem()));
        const at = words.indexOf('conformance');
        const env = Object.fromEntries(words.slice(0, at).map((w) => w.split('=') as [string, string]));
        const argv = words.slice(at + 1);
        if (argv[0] === 'verify-certificate') {
          // Without --key it always exits 2 (nothing verified): the example gives the key of the certificate's signature.
          expect(argv).toContain('--key');
          expect(example.split('&&')[0]).toContain('--sign-key');
          continue;
        }
        expect(() => load(argv, env)).not.toThrow();
      }
    }
  });
});

describe('--concurrency default', () => {
  it('16, against a target or the embedded reference (in a process of its own, it shares no thread with the judging); the flag over it', () => {
    expect(load(['--rpc-url', 'http://127.0.0.1:8545']).concurrency).toBe(DEFAULTS.concurrency);
    expect(DEFAULTS.concurrency).toBe(16);
    expect(load([]).concurrency).toBe(16);
    expect(load(['--concurrency', '8']).concurrency).toBe(8);
    expect(load(['--rpc-url', 'http://127.0.0.1:8545'], { CONCURRENCY: '2' }).concurrency).toBe(2);
  });
});
