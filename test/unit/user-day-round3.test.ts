// A careless user's mistakes, answered at configuration (exit 2) with one clear line.
import { ConfigError, loadConfig } from '../../src/cli/config';

describe('--report-dir given empty', () => {
  // `--report-dir "$OUT"` with OUT unset: the reports went into the working directory, and the
  // stale-report cleanup removed a badge.svg, certificate.json or predicate.json kept there.
  it.each(['', '   '])('%j is refused, never the working directory', (dir) => {
    expect(() => loadConfig(['--report-dir', dir], {})).toThrow(ConfigError);
    expect(() => loadConfig(['--report-dir', dir], {})).toThrow(/^--report-dir is empty: give a folder \(default reports\), or leave the flag out$/);
  });

  it('REPORT_DIR set empty is unset, as other variables are: the default folder', () => {
    expect(loadConfig([], { REPORT_DIR: '' }).reportDir).toBe('reports');
  });
});

describe('a header value HTTP cannot carry', () => {
  // A typographic ellipsis or quote pasted into a token, or a stray control character: every
  // request failed in the HTTP client, and the run said both targets were unreachable
  // (non-conformant, exit 1) — a user's mistake read as the target's failure.
  it.each<[string, string[], Record<string, string>]>([
    ['an ellipsis in a bearer token', ['--header', 'Authorization: Bearer tok\u2026abc123456'], {}],
    ['a typographic quote', ['--rpc-header', 'X-Api-Key: \u201ck3y-abc123456\u201d'], {}],
    ['a carriage return inside', ['--rest-header', 'X-Api-Key: k3y\rInjected: yes'], {}],
    ['a NUL', [], { RPC_HEADERS: 'X-Api-Key: k3y\u0000abc123456' }],
  ])('%s: refused at configuration, naming the header, never the value', (_what, argv, env) => {
    let message = '';
    try {
      loadConfig(argv, env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message).toMatch(/: the value of header [\w-]+ has a character HTTP cannot carry at position \d+ .*; value not shown$/);
    expect(message).not.toMatch(/k3y|tok/);
  });

  it('Latin-1 and visible ASCII are taken as given', () => {
    expect(loadConfig(['--header', 'X-Tenant: caf\u00e9 t\u00e9st 1'], {}).restHeaders).toEqual({ 'X-Tenant': 'caf\u00e9 t\u00e9st 1' });
  });
});
