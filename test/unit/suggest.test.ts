import { didYouMean, editDistance, suggestions } from '../../src/cli/suggest';

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

  it('stays bounded for long input', () => {
    const long = 'x'.repeat(100_000);
    expect(didYouMean(long, ['rest', 'rpc'])).toBe('');
  });
});
