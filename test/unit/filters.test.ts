// --only and --grep as a user writes them: repeated, in capitals, or --grep written as a list.
import { loadConfig } from '../../src/cli/config';
import { main } from '../../src/cli/main';
import { allChecks } from '../../suites';
import { capture } from '../support/sink';

const ids = allChecks().map((c) => c.id);

describe('--only', () => {
  it('repeated: the union of the groups, as --header repeats (never the last one alone)', () => {
    expect([...loadConfig(['--only', 'rpc', '--only', 'rest'], {}).only].sort()).toEqual(['rest', 'rpc']);
    expect([...loadConfig(['--only', 'rpc,cross', '--only', 'rest'], {}).only].sort()).toEqual(['cross', 'rest', 'rpc']);
  });

  it.each([
    [['--only', 'RPC'], {}],
    [['--only', 'Rpc'], {}],
    [[], { ONLY: 'RPC' }],
  ])('group names in any case: %j %j is the rpc group', (argv, env) => {
    expect([...loadConfig(argv, env).only]).toEqual(['rpc']);
  });

  it('a name that is no group is still refused, with a suggestion', () => {
    expect(() => loadConfig(['--only', 'RETS'], {})).toThrow(/--only \(or ONLY\): "RETS" is not one of rest, rpc, cross, preconf \(did you mean rest\?\)/);
  });
});

describe('--grep', () => {
  it('repeated: the ids matching any of them', () => {
    const grep = loadConfig(['--grep', 'getCode', '--grep', '^rest\\.list\\.status-200$'], {}).grep!;
    const selected = ids.filter((id) => grep.test(id));
    expect(selected).toContain('rest.list.status-200');
    expect(selected.filter((id) => id.includes('getCode')).length).toBeGreaterThan(0);
    expect(selected).toHaveLength(ids.filter((id) => id.includes('getCode')).length + 1);
  });

  it('an invalid pattern among several is named', () => {
    expect(() => loadConfig(['--grep', 'rest', '--grep', 'a)|(?:b'], {})).toThrow(/^--grep \(or GREP\): Invalid regular expression/);
  });

  it("written as a list ('a,b') and selecting nothing: the hint says it is a regular expression, and how to join ids", async () => {
    const [out, err] = [capture(), capture()];
    const code = await main(['--list', '--grep', 'rest.list.status-200,rpc.getCode.x'], {}, { out: out.stream, err: err.stream });
    expect(code).toBe(2);
    expect(err.text()).toContain("--grep is a regular expression, not a list: join ids with |, as in --grep 'rest.list.status-200|rpc.getCode.x'");
  });

  it('a {m,n} quantifier is no list: no such hint', async () => {
    const [out, err] = [capture(), capture()];
    expect(await main(['--list', '--grep', '^zz{1,3}$'], {}, { out: out.stream, err: err.stream })).toBe(2);
    expect(err.text()).toMatch(/selected no check/);
    expect(err.text()).not.toMatch(/not a list/);
  });
});
