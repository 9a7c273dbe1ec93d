/**
 * Spec 4.6 and 1.4: with "pending", contract deployments are visible before the block seals,
 * other senders' too (the pre-confirmed state is the whole pre-confirmed block). A replica whose
 * pending code comes from its own pool answers "0x" for contracts another sender deployed in a
 * pre-confirmed transaction. This watch takes the deployments of the pre-confirmed block
 * (transactions without `to`, deposits left out) and asks their code at "pending", as the nonce
 * watch (pending-count.ts) asks other senders' counts, with the same skew bound:
 *
 * - a "0x" at "pending" is evidence only when the deployment was first seen pre-confirmed at
 *   least PRECONF_SKEW_MS before the code was asked, "latest" read after still has no code (not
 *   sealed meanwhile), and the next read of the pending block still lists the deployment (a
 *   flashblock reorg withdraws it from the block and the state alike);
 * - a deployment may create no code (its constructor reverts or returns nothing): the evidence
 *   counts only once the sealed deployment has code at "latest";
 * - EVIDENCE_READS such reads fail; one read showing the code settles the deployment.
 */
import type { Hex } from 'viem';
import { viem } from '../../src/harness/viem';
import { check } from '../../src/harness/check';
import type { CheckContext } from '../../src/harness/check';
import { fail, inconclusive, skip } from '../../src/harness/verdict';
import { isRecord } from '../../src/harness/json';
import { isEvmAddress, isHexQuantity } from '../../src/harness/formats';
import { callResult, expectSchema } from '../../src/harness/expect';
import { pause, resultAt } from '../../src/harness/chain';
import { EVIDENCE_READS, PRECONF_SKEW_MS, QUIET_CHAIN, quietChain, readPendingBlock, WATCH_MS } from './pending-count';

type Ctx = Pick<CheckContext<'rpc'>, 'rpc' | 'note' | 'signal' | 'settings' | 'acrossSamples'>;

const POLL_MS = 50;
/** At most this many deployments are watched (bounded run time). */
const MAX_DEPLOYMENTS = 5;
/**
 * With no deployment open (none in the pending block yet, or each one seen sealed before a read
 * could tell "pending" from "latest") the watch ends after this long (ten refreshes, a block of
 * Base), as the count watch does.
 */
const IDLE_MS = 2000;
export const NO_DEPLOYMENT = `the pending block showed no contract deployment for ${IDLE_MS} ms: no pre-confirmed deployment of another sender to read`;
/** The same, in a later sample of a run that found the chain quiet (QuietChain in pending-count.ts). */
export const NO_DEPLOYMENT_NOW = `the pending block showed no contract deployment (this run had found nothing unsealed there for ${IDLE_MS} ms: a quiet chain): no pre-confirmed deployment of another sender to read`;
/** A deployment that left the pending block: its sealed code is read for at most this long. */
const SEALED_READ_MS = 2000;
/**
 * While reads found "0x" at "pending" and none showed code, the watch goes on up to this long:
 * a conformant node shows the code within the skew bound and ends it, so only a node answering
 * "0x" (or one each of whose deployments is sealed soon after a read) pays for it, and a loaded
 * runner that reads a deployment past the bound only once a block gets more blocks to do so.
 */
const SUSPECT_WATCH_MS = 2 * WATCH_MS;

interface Deployment {
  address: Hex;
  from: string;
  nonce: bigint;
  seenAt: number;
}

/** The deployments of the pre-confirmed block, by contract address (deposits left out). */
export function preconfirmedDeployments(block: unknown): Map<string, Omit<Deployment, 'seenAt'>> {
  const out = new Map<string, Omit<Deployment, 'seenAt'>>();
  if (!isRecord(block) || !Array.isArray(block.transactions)) return out;
  for (const tx of block.transactions) {
    if (!isRecord(tx) || tx.type === '0x7e' || (tx.to !== null && tx.to !== undefined) || !isEvmAddress(tx.from) || !isHexQuantity(tx.nonce)) continue;
    const from = (tx.from as string).toLowerCase();
    const nonce = BigInt(tx.nonce as string);
    const address = viem().getContractAddress({ from: from as Hex, nonce });
    out.set(address.toLowerCase(), { address, from, nonce });
  }
  return out;
}

const readDeployments = async (ctx: Ctx, first: boolean): Promise<Map<string, Omit<Deployment, 'seenAt'>>> =>
  preconfirmedDeployments(await readPendingBlock(ctx, first));

interface Shortfall {
  address: Hex;
  ageMs: number;
}

const judgePendingCode = check(
  {
    id: 'rpc.getCode.pending-deployments',
    // 4.2.2 too: "pending" refused with an error breaks the block parameter's rule (resultAt).
    statements: ['4.6.2', '1.4.1', '4.6.1', '4.2.2'],
    level: 'required',
    needs: ['rpc'],
    title: 'another sender\'s pre-confirmed deployment has code at "pending"',
  },
  async (ctx) => {
    const watched = new Map<string, Deployment>();
    const settled = new Map<string, string>();
    const shortfalls = new Map<string, Shortfall[]>();
    let unconfirmed: Shortfall[] = [];
    let withdrawn = 0;
    const left = new Map<string, number>();
    const sealedWithCode = new Map<string, string>();
    let showedCode = false;
    /** Reads of "0x" at "pending" with "latest" "0x" too, within the skew bound: ambiguous, never nothing. */
    let withinBound = 0;
    const started = performance.now();
    /** When a deployment was last open (not settled, not sealed): the idle wait counts from then. */
    let lastOpenAt = started;
    // Whether the run found the chain quiet (QuietChain, pending-count.ts): learned by the count watch.
    const chain = ctx.acrossSamples(QUIET_CHAIN, quietChain);
    let endedEarly = false;
    const watchMs = () => (!showedCode && (withinBound > 0 || shortfalls.size > 0) ? SUSPECT_WATCH_MS : WATCH_MS);
    for (let read = 0; ; read++) {
      const block = await readDeployments(ctx, read === 0);
      const at = performance.now();
      // Confirmed by this read of the block: the deployment was still pre-confirmed.
      for (const e of unconfirmed) {
        if (block.has(e.address.toLowerCase()))
          (shortfalls.get(e.address.toLowerCase()) ?? shortfalls.set(e.address.toLowerCase(), []).get(e.address.toLowerCase())!).push(e);
        else withdrawn++;
      }
      unconfirmed = [];
      // Once a deployment showed its code, no new one is taken: those watched are settled, and done.
      for (const [key, d] of block) if (!showedCode && !watched.has(key) && watched.size < MAX_DEPLOYMENTS) watched.set(key, { ...d, seenAt: at });
      for (const [key, d] of watched) {
        if (settled.has(key)) continue;
        if (!block.has(key)) {
          left.set(key, left.get(key) ?? performance.now());
          continue;
        }
        // Listed again (a flashblock reorg re-included it): pre-confirmed, open again.
        left.delete(key);
        const askedAt = performance.now();
        const code = await resultAt<string>(ctx, 'eth_getCode', [d.address, 'pending'], 'pending');
        const latest = await callResult<string>(ctx.rpc, 'eth_getCode', [d.address, 'latest']);
        expectSchema('hexBytes', code, `eth_getCode(${d.address}, "pending")`, ['4.6.1']);
        // Sealed ("latest" has code): its sealed code is known, and no later read of it can say
        // anything of the pre-confirmed state (a pending block that falls back to "latest" keeps
        // listing it). It is no longer open; reads of "0x" before now are weighed against that code.
        if (typeof latest === 'string' && latest !== '0x') sealedWithCode.set(key, latest);
        // Sealed meanwhile ("latest" has it too): this read says nothing of the pre-confirmed state.
        if (code !== '0x' && latest !== '0x') continue;
        if (code !== '0x') {
          showedCode = true;
          settled.set(
            key,
            `${d.address} (deployed by ${d.from}, nonce ${d.nonce}): code at "pending" ${askedAt - d.seenAt < PRECONF_SKEW_MS ? 'within' : 'after'} the skew bound`,
          );
          continue;
        }
        if (latest === '0x') withinBound++;
        if (latest === '0x' && askedAt - d.seenAt >= PRECONF_SKEW_MS) unconfirmed.push({ address: d.address, ageMs: Math.round(askedAt - d.seenAt) });
      }
      // A deployment that left the pending block after reads of "0x" at "pending": its sealed code
      // says whether it creates code at all. Such reads of deployments sealed with code fail.
      for (const key of shortfalls.keys()) {
        if (sealedWithCode.has(key) || settled.has(key) || !left.has(key)) continue;
        const d = watched.get(key)!;
        const sealed = await callResult<string>(ctx.rpc, 'eth_getCode', [d.address, 'latest']);
        if (typeof sealed === 'string' && sealed !== '0x') sealedWithCode.set(key, sealed);
        else if (performance.now() - left.get(key)! >= SEALED_READ_MS) settled.set(key, `${d.address}: no code once sealed (a deployment that creates none)`);
      }
      const evidence = [...sealedWithCode.keys()].flatMap((k) => (shortfalls.get(k) ?? []).map((e) => ({ ...e, d: watched.get(k)! })));
      if (evidence.length >= EVIDENCE_READS) {
        const e = evidence[evidence.length - 1]!;
        const sealed = sealedWithCode.get(e.address.toLowerCase())!;
        fail(
          `eth_getCode(${e.address}, "pending") answered "0x" for a contract ${e.d.from} deployed with nonce ${e.d.nonce} in a pre-confirmed transaction, seen in the pending block ${e.ageMs} ms before the code was asked and still unsealed ("latest" "0x" read after, the next pending block still listing it), and the contract has code once sealed; ` +
            `${evidence.length} reads beyond the ${PRECONF_SKEW_MS} ms skew tolerance did so. With "pending" contract deployments are visible before the block seals, other senders' too`,
          {
            violated: ['4.6.2', '1.4.1'],
            expected: `the deployed code (sealed: ${sealed.slice(0, 42)}${sealed.length > 42 ? '…' : ''})`,
            actual: evidence.map((x) => ({ address: x.address, code: '0x', seenMsBefore: x.ageMs })),
          },
        );
      }
      // Open: not settled, and still pre-confirmed or left with reads to weigh against its sealed code.
      const open = [...watched.keys()].filter((k) => !settled.has(k) && !sealedWithCode.has(k) && (!left.has(k) || (shortfalls.get(k)?.length ?? 0) > 0));
      // Done when nothing is open and either the watch is full or a deployment already showed its
      // code at "pending" (a conformant node needs no more of the run's time than that).
      if (open.length === 0 && (watched.size >= MAX_DEPLOYMENTS || showedCode)) break;
      if (open.length > 0) [lastOpenAt, chain.quiet] = [performance.now(), false];
      // A suspect watch (reads of "0x" beyond or within the bound, no code shown) goes on to its
      // longer bound for more deployments to weigh; any other ends IDLE_MS after its last open one,
      // or at once with none open on a chain the run found quiet.
      const suspect = watchMs() !== WATCH_MS;
      endedEarly = !suspect && open.length === 0 && chain.quiet;
      if (endedEarly || performance.now() - started >= watchMs() || ctx.signal.aborted || (!suspect && performance.now() - lastOpenAt >= IDLE_MS)) break;
      await pause(POLL_MS, ctx.signal);
    }
    if (watched.size === 0) skip(endedEarly ? NO_DEPLOYMENT_NOW : NO_DEPLOYMENT);
    const shown = [...settled.values()].filter((v) => !v.includes('no code once sealed'));
    const short = [...sealedWithCode.keys()].reduce((n, k) => n + (shortfalls.get(k)?.length ?? 0), 0);
    if (shown.length > 0 && short === 0) return ctx.note(shown.join('; '));
    // Every deployment seen was sealed before a read could find it pre-confirmed alone (a slow
    // link, a short block): no read of "pending" said anything of the pre-confirmed state, which
    // is nothing to judge, as no deployment at all is; a read of "0x" there, within the bound or
    // past it, is not (a replica answering from its own pool reads so).
    if (shown.length === 0 && shortfalls.size === 0 && withdrawn === 0 && withinBound === 0)
      skip(
        `the deployments ${[...watched.values()].map((d) => d.address).join(', ')} were each sealed before a read of their code at "pending" could tell the pre-confirmed state from "latest": no pre-confirmed deployment to judge`,
      );
    inconclusive(
      `the deployments ${[...watched.values()].map((d) => d.address).join(', ')} were watched for up to ${watchMs()} ms: ${shown.length} showed their code at "pending", and ${short} read(s) of "0x" there beyond the ${PRECONF_SKEW_MS} ms skew tolerance of deployments then sealed with code (${EVIDENCE_READS} needed to fail)` +
        ` (${withdrawn ? `, ${withdrawn} more while the next pending block no longer listed the deployment: withdrawn, a flashblock reorg?` : ''}): not judged`,
    );
  },
);

export const pendingCodeChecks = [judgePendingCode];
