// What README.md says the suite does with a behaviour of real deployments is what it does: a claim
// about revert code 3 (geth, reth, anvil) agrees with the fault catalogue, which runs it
// (test/faults/faults.test.ts: a faulty variant must fail a required check of its section).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { allChecks } from '../../suites';
import { VARIANTS } from '../faults/catalogue';

const README = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
/** README's list items, each with its continuation lines. */
const items = README.split(/\n(?=- )/).map((item) => item.split(/\n(?!\s)/)[0]);

describe('README on revert code 3', () => {
  const claims = items.filter((item) => /\b(?:code|answer) 3\b/.test(item));
  const variant = VARIANTS.find((v) => v.name === 'rpc.revert-code-3');

  it('the fault catalogue judges it: a node answering a revert with code 3 is faulty', () => {
    expect(variant?.kind).toBe('faulty');
  });

  it('README says so: no list item says such a node passes, one says which checks it fails', () => {
    expect(claims.length).toBeGreaterThan(0);
    for (const claim of claims) {
      expect(claim).not.toMatch(/\bpass\W*:.*\bcode 3\b|\bcode 3\b.* pass(es)?\b/is);
      expect(claim).toMatch(/\bfails\b/);
    }
    const required = new Set(
      allChecks()
        .filter((c) => c.level === 'required')
        .map((c) => c.id),
    );
    const named = claims.flatMap((claim) => [...claim.matchAll(/`(rpc\.[\w.-]+)`/g)].map((m) => m[1]));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((id) => !required.has(id))).toEqual([]);
  });
});
