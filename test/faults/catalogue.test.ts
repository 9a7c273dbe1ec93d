// The fault catalogue as a whole (no target needed): its counts never go down, every testable
// section has a fault, each variant says what it must show, and every variant is judged by
// exactly one shard (faults-rest, faults-rpc, faults-preconf).
import { SHARDS, VARIANTS } from './catalogue';

// No variant is ever dropped: the floors are the counts when the static variants became records (97 of 179),
// less two incomplete ones that became faults when a gateway answering 502/503 to the whole run became an
// unreachable interface (rpc.gateway-down-whole-run, rest.gateway-down-whole-run), plus the one added beside them;
// then 152 once the two withdrawn pre-confirmation variants (rpc.pending-code-own-pool-only,
// preconf.safe-finalized-from-preconfirmed) were caught reliably again; 114 records once the list's
// page rewrites, the five refusals of a method, a throttled node (an error in place of each answer) and eight
// changes of a value's form (transforms) joined them; then 158 faulty, 51 conformant (7 incomplete) and 115
// records with a violation kept past a throttle, a target down mid-run (REST and JSON-RPC), a node a call takes down, a pending state without sealed code and a refused pending block;
// then 180 faulty and 131 records once each required check no other variant pinned got a record run with it alone (--grep): its no-op pass is then caught;
// then 187 faulty and 138 records with seven more such (getCode at "latest", getBlockReceipts at "safe", "finalized" and of a busy block, the public accepts of getCode and estimateGas, the revert data without a block parameter).
it('has >= 187 faulty variants over every testable section and >= 51 conformant ones (7 incomplete), with unique names', () => {
  const faulty = VARIANTS.filter((v) => v.kind === 'faulty');
  expect(faulty.length).toBeGreaterThanOrEqual(187);
  expect(VARIANTS.filter((v) => v.kind === 'conformant').length).toBeGreaterThanOrEqual(51);
  expect(VARIANTS.filter((v) => v.incomplete).length).toBeGreaterThanOrEqual(7);
  expect(VARIANTS.filter((v) => v.record).length).toBeGreaterThanOrEqual(138);
  expect(new Set(VARIANTS.map((v) => v.name)).size).toBe(VARIANTS.length);
  const sections = new Set(faulty.map((v) => v.section));
  for (const s of ['1.4', '2.1', '2.2', '2.3', '2.4', '4.1', '4.2', '4.3', '4.4', '4.5', '4.6', '5.1', '5.2', '7']) expect(sections).toContain(s);
  for (const v of faulty) expect(v.section).toMatch(/^\d+(\.\d+)*$/);
  for (const v of VARIANTS.filter((x) => x.kind === 'conformant')) expect(v.section ?? v.gap).toBeUndefined();
  for (const v of faulty) expect([v.mustBe, v.incomplete, v.refusedAtOpen]).toEqual([undefined, undefined, undefined]);
  for (const v of VARIANTS.filter((x) => x.kind !== 'faulty')) expect(v.saying).toBeUndefined();
});

it('judges every variant in exactly one shard', () => {
  const shards = Object.entries(SHARDS);
  expect(VARIANTS.map((v) => [v.name, shards.filter(([, pick]) => pick(v)).length]).filter(([, n]) => n !== 1)).toEqual([]);
});
