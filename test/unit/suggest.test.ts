import { subcommandOf } from '../../src/cli/subcommands';
import { sink } from '../support/sink';
import { didYouMean, editDistance, oneEditApart, suggestions } from '../../src/cli/suggest';

describe('suggestions', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('rpc-ulr', 'rpc-url')).toBe(1);
    expect(editDistance('rcp', 'rpc')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
  });

  it('prefers prefixes, then the nearest, at most three, and nothing when nothing is close', () => {
    expect(suggestions('rest.list.stat', ['rest.list.status-200', 'rest.list.schema', 'rpc.envelope.http-200'])).toEqual(['rest.list.status-200']);
    expect(suggestions('rpc', ['rest', 'rpc', 'cross'])).toEqual([]);
    expect(suggestions('xyzzy', ['rest', 'rpc', 'cross', 'preconf'])).toEqual([]);
    expect(suggestions('a', ['b', 'c', 'd', 'e', 'f']).length).toBeLessThanOrEqual(3);
  });

  it('tells one edit apart in a linear pass exactly as the edit distance does', () => {
    // Every pair of short words over a small alphabet: substitutions, swaps, insertions, deletions and more.
    const words = [''];
    for (let len = 1; len <= 4; len++) for (const w of words.filter((x) => x.length === len - 1)) for (const c of 'ab_') words.push(w + c);
    for (const a of words) for (const b of words) expect([a, b, oneEditApart(a, b)]).toEqual([a, b, editDistance(a, b) === 1]);
    expect(oneEditApart('RPC_URI', 'RPC_URL')).toBe(true);
    expect(oneEditApart('SINGER_KEY', 'SIGNER_KEY')).toBe(true);
    expect(oneEditApart('BASE_URLS', 'BASE_URL')).toBe(true);
    expect(oneEditApart('PATH', 'BASE_URL')).toBe(false);
  });

  it('stays bounded for long input', () => {
    const long = 'x'.repeat(100_000);
    expect(didYouMean(long, ['rest', 'rpc'])).toBe('');
  });
});

describe('subcommands', () => {
  it('a mistyped subcommand is answered with the one meant, exit 2', async () => {
    const err = sink();
    const run = subcommandOf(['verify-certifcate', 'reports']);
    expect(run).toBeDefined();
    expect(await run!({ out: sink().stream, err: err.stream })).toBe(2);
    expect(err.text()).toMatch(/^conformance: unknown subcommand verify-certifcate \(did you mean verify-certificate\?\)/);
    expect(subcommandOf(['--only', 'rest'])).toBeUndefined();
    expect(subcommandOf([])).toBeUndefined();
  });
});
