// One cause, one root: a fact of a whole interface outside the spec (throttled, credentials
// refused, a gateway down) is one root per interface, with its hint, however many checks met it;
// it leaves them unjudged and never fails the run.
import { decideRoots } from '../../src/verdict/root-causes';
import { THROTTLE_HINT } from '../../src/harness/credentials';
import { checkResult, judged } from '../support/documents';

const throttled = (id: string, iface: 'rest' | 'rpc') =>
  checkResult(id, 'inconclusive', { cause: 'throttled', interface: iface, reason: `throttled: ${id}`, hint: THROTTLE_HINT });

describe('rootCauses: interface facts', () => {
  it('checks throttled on one interface are one root carrying the --max-rps hint; another interface is another root', () => {
    const checks = [
      ...Array.from({ length: 54 }, (_, i) => throttled(`rpc.c${i}`, 'rpc')),
      throttled('rest.list.status-200', 'rest'),
      checkResult('rpc.envelope.http-200', 'passed'),
    ];
    const roots = decideRoots(checks.map(judged)).roots;
    expect(roots.map(({ id, fact, failsRun, blocked }) => ({ id, fact, failsRun, blocked: blocked.length }))).toEqual([
      { id: 'throttled: rpc', fact: { cause: 'throttled', interface: 'rpc' }, failsRun: false, blocked: 54 },
      { id: 'throttled: rest', fact: { cause: 'throttled', interface: 'rest' }, failsRun: false, blocked: 1 },
    ]);
    expect(roots[0].hint).toMatch(/--max-rps/);
  });

  it('credentials refused and a gateway down are roots of their own, after the failures of the run', () => {
    const checks = [
      checkResult('rpc.a', 'inconclusive', { cause: 'credentials', interface: 'rpc' }),
      checkResult('rpc.b', 'inconclusive', { cause: 'credentials', interface: 'rpc' }),
      checkResult('rest.a', 'inconclusive', { cause: 'gateway', interface: 'rest' }),
      checkResult('rest.list.status-200', 'failed', { cause: 'violation', needs: ['rest'] }),
    ];
    expect(decideRoots(checks.map(judged)).roots.map(({ id, failsRun, blocked }) => [id, failsRun, blocked])).toEqual([
      ['rest.list.status-200', true, []],
      ['credentials refused: rpc', false, ['rpc.a', 'rpc.b']],
      ['gateway or backend down: rest', false, ['rest.a']],
    ]);
  });

  it('a throttled result without its interface (results of an older run) is no root', () => {
    expect(decideRoots([judged(checkResult('rpc.a', 'inconclusive', { cause: 'throttled' }))]).roots).toEqual([]);
  });
});
