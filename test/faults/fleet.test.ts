// Fleets: a load balancer over four backends of the one reference target, one of them
// misconfigured, judged with --samples 30. Each fault a single answer meets only by luck must
// fail the run; conformant fleets (backends a block apart, throttling) must pass, with the
// checks they name judged in every sample that was not throttled.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';
import { violatedSections } from '../../src/harness/result';
import type { RunDocument } from '../../src/verdict/document';
import { startReference, type ReferenceTarget } from '../../src/reference';
import { VARIANTS } from './catalogue';
import { startFleet, type Backend, type Routing } from './fleet';
import type { RpcCall, RpcMutation } from './proxy';
import { sink } from '../support/sink';

const SAMPLES = '30';
const BLOCK_TIME_MS = 1000;

/** The rewrite of a catalogue variant, as one backend of a fleet applies it. */
const backendOf = (name: string): Backend => {
  const v = VARIANTS.find((x) => x.name === name);
  if (!v) throw new Error(`no variant ${name} in the catalogue`);
  return { rest: v.rest, rpc: v.rpc };
};

/** An older build: the block tags "safe" and "finalized" are unknown to it. */
const rejectsSafeFinalized: RpcMutation = async (call: RpcCall, next) =>
  call.params.some((p) => p === 'safe' || p === 'finalized')
    ? { jsonrpc: '2.0', id: call.id ?? null, error: { code: -32602, message: 'invalid block tag' } }
    : next();

interface FleetVariant {
  name: string;
  kind: 'faulty' | 'conformant';
  routing: Routing;
  /** The odd backend, beside three that pass everything through. */
  odd: Backend;
  only: string;
  grep: string;
  /** Faulty: the section a failed required check cites. Conformant: checks that must have passed. */
  section?: string;
  mustPass?: RegExp;
}

const FLEETS: FleetVariant[] = [
  {
    name: 'fleet.receipts-403',
    kind: 'faulty',
    routing: 'connection',
    odd: backendOf('rpc.receipts-dedicated-403'),
    only: 'rpc',
    grep: '^rpc\\.getBlockReceipts\\.block\\.(latest|head-number)$',
    section: '4.3',
  },
  {
    name: 'fleet.safe-finalized-rejected',
    kind: 'faulty',
    routing: 'request',
    odd: { rpc: rejectsSafeFinalized },
    only: 'rpc',
    grep: '^rpc\\.(getTransactionCount|getCode)\\.block\\.(safe|finalized)$',
    section: '4.2',
  },
  {
    name: 'fleet.revert-32603',
    kind: 'faulty',
    routing: 'connection',
    odd: backendOf('rpc.revert-code-32603'),
    only: 'rpc',
    grep: '^rpc\\.estimateGas\\.revert\\.code$',
    section: '7',
  },
  {
    // Met on about one read in four (per request): an answer that broke the rule is evidence as read,
    // never taken back by a later read that looked right.
    name: 'fleet.pending-state-without-sealed-code',
    kind: 'faulty',
    routing: 'request',
    odd: backendOf('rpc.pending-state-without-sealed-code'),
    only: 'rpc',
    grep: '^rpc\\.getCode\\.contract\\.pending$',
    section: '1.4',
  },
  {
    name: 'fleet.decimals-string',
    kind: 'faulty',
    routing: 'connection',
    odd: backendOf('rest.decimals-string'),
    only: 'rest',
    grep: '^rest\\.',
    section: '2.1',
  },
  {
    name: 'fleet.ok.one-block-apart',
    kind: 'conformant',
    routing: 'request',
    odd: backendOf('ok.lb-one-block-apart'),
    only: 'rpc',
    grep: '^rpc\\.(getTransactionCount|getCode)\\.block\\.(latest|head-number)$',
    mustPass: /^rpc\.(getTransactionCount|getCode)\.block\.(latest|head-number)$/,
  },
  {
    name: 'fleet.ok.throttling',
    kind: 'conformant',
    routing: 'connection',
    odd: backendOf('ok.rpc-32005-or-503-once'),
    only: 'rpc',
    grep: '^rpc\\.(envelope\\.jsonrpc-version|getCode\\.block\\.(latest|head-number))$',
    mustPass: /^rpc\.(envelope\.jsonrpc-version|getCode\.block\.(latest|head-number))$/,
  },
];

let ref: ReferenceTarget;

beforeAll(async () => {
  ref = await startReference({ blockTimeMs: BLOCK_TIME_MS });
}, 60_000);

afterAll(async () => {
  await ref?.stop();
});

async function judge(v: FleetVariant): Promise<{ exitCode: number; doc: RunDocument; routed: number[]; connections: number; console: string }> {
  const fleet = await startFleet(ref, [{}, {}, v.odd, {}], v.routing);
  const dir = mkdtempSync(path.join(tmpdir(), 'fleet-'));
  const out = sink();
  try {
    const argv = ['--base-url', fleet.restUrl, '--rpc-url', fleet.rpcUrl, '--only', v.only, '--grep', v.grep, '--samples', SAMPLES];
    const exitCode = await main([...argv, '--report-dir', dir, '--timeout-ms', '3000', '--deadline-ms', '60000'], {}, { out: out.stream, err: out.stream });
    const doc = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunDocument;
    return { exitCode, doc, routed: [...fleet.routed], connections: fleet.connections, console: out.text() };
  } finally {
    await fleet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(FLEETS)('$name', (v) => {
  it(
    v.kind === 'faulty' ? 'fails at --samples 30, citing its section, k of 30 answers recorded' : 'passes at --samples 30',
    async () => {
      const { exitCode, doc, routed, connections, console: text } = await judge(v);
      // Every backend was asked: the odd one too.
      expect(routed.every((n) => n > 0)).toBe(true);
      if (v.routing === 'connection') expect(connections).toBeGreaterThanOrEqual(4);
      expect(doc.sampling).toMatchObject({ n: 30 });
      const judged = doc.checks.filter((c) => c.cause !== 'deselected' && c.cause !== 'out-of-scope');
      expect(judged.length).toBeGreaterThan(0);
      for (const c of judged) expect(c.samples?.n).toBe(30);
      if (v.kind === 'faulty') {
        const failed = judged.filter((c) => c.status === 'failed' && c.level === 'required' && violatedSections(c).includes(v.section!));
        expect({ exitCode, failed: failed.map((c) => c.id), text: exitCode === 1 ? '' : text }).toMatchObject({ exitCode: 1 });
        expect(failed.length).toBeGreaterThan(0);
        // One backend of four: some answers (routed per connection, never all of them), and the failure says how many.
        for (const c of failed) {
          expect(c.samples!.failed).toBeGreaterThan(0);
          if (v.routing === 'connection') expect(c.samples!.failed).toBeLessThan(30);
          expect(c.reason).toContain(`of 30 samples`);
          expect(c.exchanges.length).toBeGreaterThan(0);
        }
      } else {
        const notPassed = judged.filter((c) => v.mustPass!.test(c.id) && c.status !== 'passed').map((c) => `${c.id}: ${c.status} ${c.reason}`);
        expect({ exitCode, notPassed }).toEqual({ exitCode: 0, notPassed: [] });
        for (const c of judged) expect(c.samples!.judged).toBeGreaterThan(0);
      }
    },
    90_000,
  );
});

/** Flashblocks off: "pending" state reads answered from "latest" (the pre-confirmed state ignored). */
const pendingFromLatest: RpcMutation = async (call: RpcCall, next) => {
  const i = call.method === 'eth_getTransactionCount' || call.method === 'eth_getCode' || call.method === 'eth_estimateGas' ? 1 : -1;
  if (i < 0 || call.params[i] !== 'pending') return next();
  const c: RpcCall = { ...call, params: [...call.params] };
  c.params[i] = 'latest';
  return next(c);
};

/** Flashblocks off for receipts only: eth_getBlockReceipts("pending") answered as "latest". */
const receiptsFromLatest: RpcMutation = async (call: RpcCall, next) =>
  call.method === 'eth_getBlockReceipts' && call.params[0] === 'pending' ? next({ ...call, params: ['latest'] }) : next();

// Pre-confirmed state is judged by the pass, which sends its transactions once whatever N is: a
// backend with Flashblocks off is seen in the reads the pass makes after it first saw its own
// transactions pre-confirmed, up to their seal (docs/sampling.md).
describe('fleet.pending-from-latest', () => {
  // Blocks of 2 s: after the first sighting, enough rounds of reads before the seal on a loaded machine.
  let slow: ReferenceTarget;
  beforeAll(async () => {
    slow = await startReference({ blockTimeMs: 2 * BLOCK_TIME_MS });
  }, 60_000);
  afterAll(async () => {
    await slow?.stop();
  });

  /** The nonce, code and estimate checks through a fleet of four whose third backend is `odd`, per-request routing. */
  async function preconfThrough(
    odd?: RpcMutation,
    checks = '^preconf\\.(nonce|code|estimate)\\.',
  ): Promise<{ exitCode: number; failed: string[]; notPassed: string[]; sends: number; out: string; routed: number[] }> {
    let sends = 0;
    // Every backend counts the transactions it is handed, whichever the balancer picks.
    const counting =
      (m?: RpcMutation): RpcMutation =>
      async (call, next, ctx) => {
        if (call.method === 'eth_sendRawTransaction') sends++;
        return m ? m(call, next, ctx) : next();
      };
    const fleet = await startFleet(slow, [{ rpc: counting() }, { rpc: counting() }, { rpc: counting(odd) }, { rpc: counting() }], 'request');
    const dir = mkdtempSync(path.join(tmpdir(), 'fleet-'));
    const out = sink();
    try {
      const argv = ['--base-url', fleet.restUrl, '--rpc-url', fleet.rpcUrl, '--signer-key', slow.signerKey, '--only', 'preconf', '--samples', SAMPLES];
      const grep = ['--grep', checks, '--report-dir', dir, '--timeout-ms', '3000', '--deadline-ms', '60000'];
      const exitCode = await main([...argv, ...grep], {}, { out: out.stream, err: out.stream });
      const doc = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunDocument;
      expect(doc.sampling).toMatchObject({ n: 30 });
      const judged = doc.checks.filter((c) => new RegExp(checks).test(c.id));
      return {
        exitCode,
        failed: judged.filter((c) => c.status === 'failed' && c.level === 'required').map((c) => `${c.id}: ${c.reason}`),
        notPassed: judged.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.status} ${c.reason}`),
        sends,
        out: out.text(),
        routed: [...fleet.routed],
      };
    } finally {
      await fleet.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('pending nonce, code and estimate answered from latest by one backend of four fail at --samples 30, with no extra transaction', async () => {
    const { exitCode, failed, sends, out, routed } = await preconfThrough(pendingFromLatest);
    expect(routed.every((n) => n > 0)).toBe(true);
    expect({ exitCode, failed: failed.length ? failed : out }).toMatchObject({ exitCode: 1 });
    // The later reads are what see it: the first read that established the state may well have reached a good backend.
    // A later read of the nonce whose two spellings met different backends says so as a spelling disagreement, past the tolerance.
    const seenLater = (r: string) => /\d+ of \d+ later reads showed the old state|ms after the state was first seen/.test(r);
    expect({ later: failed.some(seenLater), failed }).toMatchObject({ later: true });
    // One pass: a batch of five per attempt (at most four attempts), whatever N is.
    expect(sends).toBeGreaterThanOrEqual(5);
    expect(sends).toBeLessThanOrEqual(5 * 4);
  }, 90_000);

  // Only the reads between the skew bound and the seal can meet that backend, one read a round,
  // a quarter of them reaching it: caught in 20 of 20 runs idle, 13 of 15 with both cores kept
  // busy (docs/judgement-calls.md). A run that misses is one more run, up to three: the fault
  // must be caught in one of them, so a miss rate like that fails this test about 1 time in 400.
  it('pending receipts answered from latest by one backend of four fail at --samples 30, stating k of N later reads', async () => {
    const runs: Array<{ exitCode: number; failed: string[] }> = [];
    for (let run = 0; run < 3 && !runs.some((r) => r.exitCode === 1); run++) {
      const { exitCode, failed, routed } = await preconfThrough(receiptsFromLatest, '^preconf\\.receipts\\.');
      expect(routed.every((n) => n > 0)).toBe(true);
      runs.push({ exitCode, failed });
    }
    const caught = runs.find((r) => r.exitCode === 1);
    expect({ caught: caught !== undefined, runs }).toMatchObject({ caught: true });
    expect(caught!.failed).toEqual([
      expect.stringMatching(
        /^preconf\.receipts\.pending-block: .*eth_getBlockReceipts\("pending"\): \d+ of \d+ later reads showed the old state more than 600 ms after/,
      ),
    ]);
  }, 90_000);

  it('passes at --samples 30 when one backend of four imports each block 400 ms late ("latest" a block behind, "pending" refreshed)', async () => {
    const { exitCode, notPassed } = await preconfThrough(backendOf('ok.preconf-lb-one-block-apart').rpc);
    expect({ exitCode, notPassed }).toEqual({ exitCode: 0, notPassed: [] });
  }, 90_000);
});
