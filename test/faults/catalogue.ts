// The fault-injection catalogue: every way an implementer could get the spec slightly wrong
// (kind 'faulty': the suite must exit 1 with a failed required check citing `section`), and
// every way a conformant target may legitimately differ from the reference (kind
// 'conformant': the suite must exit 0). Each variant is a small rewrite applied by the
// loopback proxy in ./proxy.ts in front of the reference target.
//
// A variant whose change is a static rewrite of an answer is data: a record in
// ./records/<section>-<topic>.yaml (read by ./records.ts). What stays here is code for
// behaviours in time (hangs, resets, lagging backends, throttling, pending answered as latest,
// answers held back) and for rewrites a JSON Patch cannot say (a value computed from another, an
// answer that depends on the request's headers, both interfaces at once).
//
// Read a variant as: name, what is wrong (or legitimately different), the section whose
// check must catch it, the groups to run, and the rewrite. `gap` marks a faulty variant no
// check catches yet (reported as a todo, never as a pass).
import { keccak256, getAddress, type Hex } from 'viem';
import type { Group, Interface } from '../../src/harness/check';
import type { Cause, ScopeFlag } from '../../src/harness/verdict';
import { HANG, RESET, Raw, type Answer, type Envelope, type Json, type RestMutation, type RestRequest, type RpcCall, type RpcMutation } from './proxy';
import { headOf, PRECONF_VARIANTS } from './catalogue-preconf';
import { BLOCK_PARAM, loadRecords } from './records';

export interface Variant {
  name: string;
  kind: 'faulty' | 'conformant';
  /** What the implementer got wrong, or what a conformant target legitimately does. */
  what: string;
  /** Faulty only: the section a failed required check must cite: one of the sections of its `violated` statements. */
  section?: string;
  /** Groups to run (--only). */
  only: Group[];
  rest?: RestMutation;
  rpc?: RpcMutation;
  /** Added to every answer, REST and JSON-RPC. */
  latencyMs?: number;
  /** --grep for the run (default: every check of the groups but the advisory preconf.latency ones). */
  grep?: string;
  /** Extra CLI flags, e.g. ['--profile', 'public'] or ['--timeout-ms', '1000']. */
  args?: string[];
  /** A faulty variant no check catches: the missing rule. Reported as a todo. */
  gap?: string;
  /**
   * Checks (id regex) that must have judged and passed: for a conformant variant, so exit 0 is
   * earned; for a faulty one, the checks beside the catching one, so it is caught by that check alone.
   */
  mustPass?: string;
  /** Faulty only: what the catching check's reason says (regex): the evidence it was caught on. */
  saying?: string;
  /**
   * One root cause, one failure: exactly these checks fail (required or not), and at least
   * `blockedAtLeast` others are inconclusive, blocked by `blockedBy`: a root check's id, or an unreachable interface.
   */
  oneRoot?: { failed: string[]; blockedBy: string | { unreachable: Interface }; blockedAtLeast: number };
  /** Conformant only: checks (id regex) that must end with this status and cause, and the flag that left them out if any (e.g. skipped for want of --archive, inconclusive as throttled). */
  mustBe?: Array<[ids: string, status: 'skipped' | 'inconclusive', cause: Cause, flag?: ScopeFlag]>;
  /** Conformant only: nothing required could be judged, so the run is incomplete: exit 3. */
  incomplete?: boolean;
  /** Conformant only: a mistake of the configuration (credentials outside the spec) refused where the run opens: exit 2, the console saying this. */
  refusedAtOpen?: RegExp;
  /** The run states exactly this many root causes (src/verdict/root-causes.ts): one cause, one root. */
  roots?: number;
  /** A data variant: the record file it was read from (./records/). */
  record?: string;
  /** Why the verdict needs the chain in motion (seals, other senders' transactions sealed): judged live, not on the replay tier. */
  live?: string;
}

// ---- REST rewrites -----------------------------------------------------------------------

type Rec = Record<string, Json>;
const LIST = '/v1/tokenized-stocks';
const isList = (r: RestRequest) => new URL(r.path, 'http://x').pathname.replace(/\/+$/, '') === LIST;
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Rewrite the JSON body of a successful GET of the list. */
const listBody =
  (f: (body: Rec) => Json): RestMutation =>
  async (req, next) => {
    const res = await next();
    const body = res.json();
    if (req.method !== 'GET' || !isList(req) || res.status !== 200 || typeof body !== 'object' || body === null) return res;
    return new Raw(res.status, res.headers, JSON.stringify(f(clone(body as Rec))));
  };

/** Rewrite the tokens array of the list. */
const tokens = (f: (ts: Rec[]) => Json): RestMutation => listBody((b) => ({ ...b, tokens: f(b.tokens as Rec[]) }));
/** Rewrite every record. */
const eachToken = (f: (t: Rec, i: number) => void): RestMutation => tokens((ts) => ts.map((t, i) => (f(t, i), t)));
/** Rewrite one record (a subtle fault: a check has to look at every record). */
const oneToken = (f: (t: Rec) => void): RestMutation => tokens((ts) => ts.map((t, i) => (i === Math.min(1, ts.length - 1) && f(t), t)));

/** Answer GETs of the list ourselves. */
const answerList =
  (answer: (req: RestRequest) => Answer): RestMutation =>
  async (req, next) =>
    req.method === 'GET' && isList(req) ? answer(req) : next();

/** Answer requests with this method on the list path ourselves. */
const onListMethod =
  (method: string, answer: (req: RestRequest, next: () => Promise<Raw>) => Promise<Answer>): RestMutation =>
  async (req, next) =>
    req.method === method && isList(req) ? answer(req, () => next({ ...req, method: 'GET', body: '' })) : next();

const iso = (ms: number) => new Date(ms).toISOString();

/** Every record's chosen fields under protojson's lowerCamelCase JSON names, as grpc-gateway writes them without UseProtoNames. */
const protojsonNames = (renamed: (field: string) => boolean): RestMutation =>
  eachToken((t) => {
    for (const k of Object.keys(t).filter(renamed)) {
      t[k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())] = t[k];
      delete t[k];
    }
  });

// ---- JSON-RPC rewrites -------------------------------------------------------------------

const blockOf = (call: RpcCall): Json | undefined => call.params?.[BLOCK_PARAM[call.method]];
const isPending = (call: RpcCall) => blockOf(call) === 'pending';
const methods = (m: string | string[]) => new Set(Array.isArray(m) ? m : [m]);

/** Rewrite the answer to calls of these methods (envelopes only; raw answers pass). */
const onAnswer =
  (m: string | string[], f: (env: Envelope, call: RpcCall) => Envelope | Answer, when: (call: RpcCall) => boolean = () => true): RpcMutation =>
  async (call, next) => {
    const res = await next();
    if (!methods(m).has(call.method) || !when(call) || res instanceof Raw) return res;
    return f(clone(res), call);
  };

/** Rewrite the result of successful calls of these methods. */
const onResult = (m: string | string[], f: (result: Json, call: RpcCall) => Json, when?: (call: RpcCall) => boolean): RpcMutation =>
  onAnswer(m, (env, call) => ('result' in env && env.result !== null ? { ...env, result: f(env.result, call) } : env), when);

/** Rewrite the error of failing calls of these methods. */
const onError = (m: string | string[], f: (error: Rec, env: Envelope) => Envelope): RpcMutation =>
  onAnswer(m, (env) => (typeof env.error === 'object' && env.error !== null ? f(env.error as Rec, env) : env));

/** Answer calls of these methods ourselves (no forwarding). */
const answerCall =
  (m: string | string[], f: (call: RpcCall) => Envelope | Answer, when: (call: RpcCall) => boolean = () => true): RpcMutation =>
  async (call, next) =>
    methods(m).has(call.method) && when(call) ? f(call) : next();

/** Rewrite the call before it goes upstream. */
const rewriteCall =
  (m: string | string[], f: (call: RpcCall) => RpcCall, when: (call: RpcCall) => boolean = () => true): RpcMutation =>
  async (call, next) =>
    next(methods(m).has(call.method) && when(call) ? f(clone(call)) : undefined);

/** Rewrite every answer (all methods) — for envelope faults. */
const everyAnswer =
  (f: (env: Envelope, call: RpcCall) => Envelope | Answer): RpcMutation =>
  async (call, next) => {
    const res = await next();
    return res instanceof Raw ? res : f(clone(res), call);
  };

/** The transactions one attempt of the pre-confirmation pass sends. */
const TX_PER_ATTEMPT = 5;
const rpcError = (call: RpcCall, code: number, message: string): Envelope => ({ jsonrpc: '2.0', id: call.id ?? null, error: { code, message } });
/** Answer "pending" from "latest": the pre-confirmed state is ignored. */
const pendingAsLatest = (m: string): RpcMutation => rewriteCall(m, (c) => ((c.params[BLOCK_PARAM[m]] = 'latest'), c), isPending);
/** Pre-confirmed state never shown: a miss is evidence only when sent early, watched closely, and repeated. */
const TWICE_UNSEEN = 'sealed without ever showing at "pending", although sent early in the block interval and watched closely, on 2 attempts';
/** The nonce check's evidence of a pending count below the truth: read twice, or the send it named refused. */
const COUNT_BELOW_LATEST = '^eth_getTransactionCount\\(signer, "pending"\\) answered \\d+ right after "latest" answered \\d+ \\(twice: ';
const NONCE_TOO_LOW =
  '^eth_sendRawTransaction of nonce (\\d+) answered error -?\\d+ "nonce too low", although eth_getTransactionCount\\(signer, "pending"\\) answered \\1 before the send and \\1 when re-read after it';
/** One root cause: the nonce check fails, and the three others (not preconf.latency, left out) say they were blocked by it. */
const NONCE_ROOT = { failed: ['preconf.nonce.back-to-back'], blockedBy: 'preconf.nonce.back-to-back', blockedAtLeast: 3 };
const hexInt = (v: Json) => BigInt(v as string);
const isEmptyCode = (r: Json) => r === '0x';
/** A hex count one lower (never below 0), and a hex number one higher. */
const oneLess = (r: Json) => (hexInt(r) > 0n ? `0x${(hexInt(r) - 1n).toString(16)}` : r);
const plusOne = (r: Json | undefined) => (typeof r === 'string' ? `0x${(hexInt(r) + 1n).toString(16)}` : (r ?? null));

// ---- providers and load balancers (throttling, backends a block apart, pruned history) ----

/** Answer the first sight of every n-th distinct call with `answer`; its retry (same body) is served. */
const onceEvery = (n: number, answer: (call: RpcCall, k: number) => Envelope | Answer): RpcMutation => {
  const seen = new Set<string>();
  let k = 0;
  return async (call, next) => {
    const body = JSON.stringify(call);
    if (seen.has(body)) return next();
    seen.add(body);
    return ++k % n === 0 ? answer(call, k / n) : next();
  };
};

/** The first request (the run's probe) answered as it is, every later one by `answer`: a backend that goes down after the run opened. */
const afterFirst = (answer: RestMutation): RestMutation => {
  let first = true;
  return async (req, next) => {
    if (!first) return answer(req, next);
    first = false;
    return next();
  };
};

/** A provider's rate limit on the REST gateway: a token bucket; requests beyond it get 429 + rpcStatus + Retry-After. */
const restRateLimit = (perSecond: number): RestMutation => {
  let tokens = perSecond;
  let last = Date.now();
  return async (_req, next) => {
    const now = Date.now();
    tokens = Math.min(perSecond, tokens + ((now - last) / 1000) * perSecond);
    last = now;
    if (tokens < 1)
      return new Raw(
        429,
        { 'content-type': 'application/json', 'retry-after': '1' },
        JSON.stringify({ code: 8, message: 'rate limit exceeded: retry later', details: [] }),
      );
    tokens -= 1;
    return next();
  };
};

const STATE_READS = new Set(['eth_getTransactionCount', 'eth_getCode', 'eth_estimateGas', 'eth_call', 'eth_getBalance', 'eth_getStorageAt']);
const blockIndex = (call: RpcCall): number => (call.method in BLOCK_PARAM ? BLOCK_PARAM[call.method] : call.method === 'eth_getStorageAt' ? 2 : 1);
const hex = (n: bigint) => `0x${n.toString(16)}`;

/** eth_estimateGas from a sender without funds refused "insufficient funds ..." even without fee fields, as Tevm does. */
const refuseUnfundedEstimate: RpcMutation = async (call, next) => {
  const tx = call.params?.[0];
  if (call.method !== 'eth_estimateGas' || typeof tx !== 'object' || tx === null || Array.isArray(tx) || typeof tx.from !== 'string') return next();
  const balance = await next({ jsonrpc: '2.0', id: 0, method: 'eth_getBalance', params: [tx.from, 'latest'] });
  if (balance instanceof Raw || balance.result !== '0x0') return next();
  return rpcError(call, -32000, 'insufficient funds for gas * price + value');
};

/**
 * A full node keeping state for the latest `retention` blocks (op-geth keeps 128): state reads at
 * "earliest", and at numbers or "safe"/"finalized" older than that, answer geth's error.
 */
const prunedState =
  (retention: bigint): RpcMutation =>
  async (call, next) => {
    if (!STATE_READS.has(call.method)) return next();
    const tag = call.params[blockIndex(call)];
    let n: bigint | undefined;
    if (tag === 'earliest') n = -1n;
    else if (typeof tag === 'string' && /^0x[0-9a-f]+$/i.test(tag)) n = hexInt(tag);
    else if (tag === 'safe' || tag === 'finalized') {
      const b = await next({ jsonrpc: '2.0', id: 0, method: 'eth_getBlockByNumber', params: [tag, false] });
      n = b instanceof Raw || typeof b.result !== 'object' || b.result === null ? undefined : hexInt((b.result as Rec).number);
    }
    const head = n === undefined ? undefined : await headOf(next);
    if (n === undefined || head === undefined || (n >= 0n && n + retention >= head)) return next();
    return rpcError(call, -32000, 'missing trie node 5c9988edf0f4826717b1cda157724c139a93e7c232e919b2f7cdff31e708c5d8 (path )');
  };

/**
 * History expiry (EIP-4444) with a short window: blocks more than `window` below the head are
 * not served, neither bodies nor receipts (geth's error 4444 "pruned history unavailable"); the
 * state is kept. On a young or quiet chain the blocks that held senders and deployments are gone.
 */
const historyExpired =
  (window: bigint): RpcMutation =>
  async (call, next) => {
    if (call.method !== 'eth_getBlockByNumber' && call.method !== 'eth_getBlockReceipts') return next();
    const tag = call.params[0];
    if (tag !== 'earliest' && !(typeof tag === 'string' && /^0x[0-9a-f]+$/i.test(tag))) return next();
    const head = await headOf(next);
    if (head === undefined || (tag !== 'earliest' && hexInt(tag) + window >= head)) return next();
    return rpcError(call, 4444, 'pruned history unavailable');
  };

/** Where a call's block argument is (eth_getBlockByNumber's first, a state read's), or -1 for a call without one. */
const blockArgIndex = (call: RpcCall): number =>
  call.method === 'eth_getBlockByNumber' ? 0 : call.method in BLOCK_PARAM || STATE_READS.has(call.method) ? blockIndex(call) : -1;

/** Answer as a node whose head is `mine`: eth_blockNumber and "latest" are that block, and the blocks after it are unknown to it. */
async function answerAsHead(mine: bigint, call: RpcCall, next: (call?: RpcCall) => Promise<Envelope | Raw>): Promise<Envelope | Raw> {
  const reply = (result: Json): Envelope => ({ jsonrpc: '2.0', id: call.id ?? null, result });
  if (call.method === 'eth_blockNumber') return reply(hex(mine));
  const i = blockArgIndex(call);
  if (i < 0) return next();
  const tag = call.params[i] ?? 'latest';
  if (tag === 'latest') {
    const c = clone(call);
    c.params[i] = hex(mine);
    return next(c);
  }
  if (typeof tag === 'string' && /^0x[0-9a-f]+$/i.test(tag) && hexInt(tag) > mine) {
    return call.method === 'eth_getBlockByNumber' || call.method === 'eth_getBlockReceipts' ? reply(null) : rpcError(call, -32000, 'header not found');
  }
  return next();
}

/**
 * A load balancer over two backends, the second importing each block `lagMs` after the first:
 * half the calls (in a fixed scrambled order, so no worker keeps one backend) reach it, and
 * while it lags it answers as a node one block behind: its head is head-1, "latest" is that
 * block, and the head block is unknown to it ("header not found", or null for blocks and receipts).
 */
const laggingBackend = (lagMs: number): RpcMutation => {
  let calls = 0;
  let head = -1n;
  let seenAt = 0;
  return async (call, next) => {
    calls++;
    if (((calls * 2654435761) >>> 13) % 2 === 0) return next();
    const now = await headOf(next);
    if (now === undefined) return next();
    if (now !== head) [head, seenAt] = [now, Date.now()];
    if (Date.now() - seenAt >= lagMs) return next();
    return answerAsHead(head - 1n, call, next);
  };
};

/**
 * A backend `depth` blocks behind the chain (a stuck or slow node left in a balancer's rotation):
 * its head is head-depth (eth_blockNumber, "latest"), and the blocks it has not imported are
 * unknown to it ("header not found", null for blocks and receipts). `when` picks the calls it
 * answers (default all): one backend of several, or every other read.
 */
export const blocksBehind =
  (depth: bigint, when: (call: RpcCall) => boolean = () => true): RpcMutation =>
  async (call, next) => {
    const i = blockArgIndex(call);
    if ((i < 0 && call.method !== 'eth_blockNumber') || !when(call)) return next();
    const now = await headOf(next);
    if (now === undefined || now < depth) return next();
    return answerAsHead(now - depth, call, next);
  };

/**
 * A backend whose pre-confirmed count trails the pre-confirmed block by `lagMs`: a transaction
 * seen in the pending block counts at "pending" only `lagMs` after the proxy first saw it there,
 * in any answer of eth_getBlockByNumber("pending") (backends a few hundred ms apart behind one
 * address, each refreshed on its own). Not only when its sender's count is asked: a first count
 * read long after the suite saw the transaction would otherwise lag past the skew bound (on 2 s
 * blocks a transaction is pre-confirmed long enough for that).
 */
const pendingCountLagging = (lagMs: number): RpcMutation => {
  const firstSeen = new Map<string, number>();
  const see = (block: unknown, now: number) => {
    if (typeof block !== 'object' || block === null) return;
    for (const tx of ((block as Rec).transactions ?? []) as Rec[]) {
      if (typeof tx !== 'object' || tx === null) continue;
      const key = `${String(tx.from).toLowerCase()}:${String(tx.nonce)}`;
      if (!firstSeen.has(key)) firstSeen.set(key, now);
    }
  };
  return async (call, next) => {
    if (call.method === 'eth_getBlockByNumber' && call.params[0] === 'pending') {
      const res = await next();
      if (!(res instanceof Raw)) see(res.result, Date.now());
      return res;
    }
    if (call.method !== 'eth_getTransactionCount' || !isPending(call) || typeof call.params[0] !== 'string') return next();
    const account = call.params[0].toLowerCase();
    const block = await next({ jsonrpc: '2.0', id: 0, method: 'eth_getBlockByNumber', params: ['pending', true] });
    const now = Date.now();
    let countable: bigint | undefined;
    if (!(block instanceof Raw) && typeof block.result === 'object' && block.result !== null) {
      see(block.result, now);
      for (const tx of ((block.result as Rec).transactions ?? []) as Rec[]) {
        if (typeof tx !== 'object' || String(tx.from).toLowerCase() !== account) continue;
        const key = `${account}:${String(tx.nonce)}`;
        const n = hexInt(tx.nonce);
        if (now - firstSeen.get(key)! >= lagMs && (countable === undefined || n + 1n > countable)) countable = n + 1n;
      }
    }
    const res = await next();
    if (res instanceof Raw || typeof res.result !== 'string') return res;
    const latest = await next({ ...call, params: [call.params[0], 'latest'] });
    if (latest instanceof Raw || typeof latest.result !== 'string') return res;
    // What this backend knows: its sealed count, plus the pre-confirmed transactions it has had for lagMs.
    const floor = hexInt(latest.result);
    const known = countable !== undefined && countable > floor ? countable : floor;
    return hexInt(res.result) > known ? { ...res, result: hex(known) } : res;
  };
};

/**
 * A Flashblocks node right after a seal, before the next block's first flashblock: its
 * eth_getBlockByNumber("pending") already shows the block being built (head + 1, empty), while
 * eth_getBlockReceipts("pending") still falls back to "latest", the receipts of the new head.
 * (The reference falls back in both.) A sample between a seal and the first flashblock sees
 * receipts numbered as the head beside a pending block numbered head + 1.
 */
const pendingBlockBuiltBeforeReceipts: RpcMutation = async (call, next) => {
  const res = await next();
  if (call.method !== 'eth_getBlockByNumber' || call.params[0] !== 'pending' || res instanceof Raw) return res;
  const block = res.result;
  if (typeof block !== 'object' || block === null || Array.isArray(block)) return res;
  const head = await headOf(next);
  const number = (block as Rec).number;
  if (head === undefined || typeof number !== 'string' || hexInt(number) > head) return res;
  // "latest" in place of the pending block: show the empty block being built instead.
  return {
    ...res,
    result: { ...(block as Rec), number: hex(head + 1n), hash: null, parentHash: (block as Rec).hash ?? null, transactions: [], gasUsed: '0x0' },
  };
};

// ---- a fault seen, then an interface fact: the evidence stands --------------------------

/** What a target may answer every call with once a fault has been seen: credentials refused, the backend down, throttled for good. */
const LATER_FACTS: Array<[name: string, words: string, answer: () => Raw]> = [
  [
    '401',
    'HTTP 401 with WWW-Authenticate',
    () => new Raw(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' }, '{"error":"token expired"}'),
  ],
  [
    '403',
    'HTTP 403 with an authentication challenge',
    () => new Raw(403, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="node"' }, '{"error":"forbidden"}'),
  ],
  ['503', 'HTTP 503 (the backend down)', () => Raw.text(503, 'text/html', '<html><body><h1>503 Service Unavailable</h1></body></html>')],
  [
    '429',
    'HTTP 429 with Retry-After: 1 (throttled for good)',
    () => new Raw(429, { 'content-type': 'application/json', 'retry-after': '1' }, '{"error":"rate limit exceeded"}'),
  ],
];
/** An ISIN with its check digit moved one on: wrong by ISO 6166. */
const badIsin = (isin: string) => isin.slice(0, 11) + String((Number(isin[11]) + 1) % 10);
const NO_CODE = getAddress('0x000000000000000000000000000000000000dead');

/**
 * A real fault the check sees, then an interface fact on a later call of the same check: the
 * violation already recorded stands (src/harness/evidence.ts), the check fails with both stated.
 */
const FAULT_THEN_FACT: Variant[] = LATER_FACTS.flatMap(([fact, words, answer]): Variant[] => [
  {
    name: `cross.decimals-wrong-then-${fact}`,
    kind: 'faulty',
    section: '2.1',
    only: ['cross'],
    grep: '^cross\\.token\\.decimals\\.matches-chain$',
    what: `one record's decimals 8 in REST, 18 on chain; every eth_call after the one that showed it answered ${words}`,
    rest: oneToken((t) => (t.decimals = 8)),
    // Records are compared in order, one eth_call each: the second call shows the fault (record 1).
    rpc: (() => {
      let calls = 0;
      return async (call, next) => (call.method === 'eth_call' && ++calls > 2 ? answer() : next());
    })(),
  },
  {
    name: `cross.address-without-code-then-${fact}`,
    kind: 'faulty',
    section: '2.1',
    only: ['cross'],
    grep: '^cross\\.token\\.has-code\\.latest$',
    what: `one listed contract_address has no code; every eth_getCode asked after that "0x" answered ${words}`,
    rest: oneToken((t) => (t.contract_address = NO_CODE)),
    // The empty address is answered first (the others in flight a moment later), so the calls after it meet the fact.
    rpc: (() => {
      let shown = false;
      return async (call, next) => {
        if (call.method !== 'eth_getCode') return next();
        if (String(call.params?.[0]).toLowerCase() === NO_CODE.toLowerCase()) return next().finally(() => (shown = true));
        if (shown) return answer();
        await new Promise((r) => setTimeout(r, 100));
        return next();
      };
    })(),
  },
]);

/** The list the run opened with (the probe's read) shows the fault; every REST request after it answers 503: that answer is judged. */
const PROBE_SAW_IT: Variant = {
  name: 'rest.isin-bad-check-digit-then-503',
  kind: 'faulty',
  section: '2.1',
  only: ['rest'],
  grep: '^rest\\.token\\.field\\.isin$',
  what: 'the list read as the run opened holds an ISIN with a wrong check digit; every REST request after that answered HTTP 503 (the backend down)',
  rest: (() => {
    let answered = 0;
    const bad = oneToken((t) => (t.isin = badIsin(String(t.isin))));
    return async (req, next) => (answered++ === 0 ? bad(req, next) : Raw.text(503, 'text/html', '<html><body>503 Service Unavailable</body></html>'));
  })(),
};

// ---- the catalogue -----------------------------------------------------------------------

/** The variants that stay code: behaviours in time, and rewrites a JSON Patch cannot say. */
export const CODE_VARIANTS: Variant[] = [
  // Pre-confirmed state on real deployments and peers (backends apart, defaults, flashblocks, ganache).
  ...PRECONF_VARIANTS,
  // A fault once seen stands, whatever the target answers after it.
  ...FAULT_THEN_FACT,
  PROBE_SAW_IT,
  // ==== 4.1 the REST endpoint, its statuses and media types ====
  {
    name: 'rest.post-answered-200',
    kind: 'faulty',
    section: '4.1',
    only: ['rest'],
    what: 'POST on the read-only list answers 200 with the list',
    rest: onListMethod('POST', async (_req, get) => get()),
  },

  // ==== 2.2 the list response ====
  {
    name: 'rest.tokens-not-array',
    kind: 'faulty',
    section: '2.2',
    only: ['rest'],
    what: 'tokens is an object keyed by symbol',
    rest: tokens((ts) => Object.fromEntries(ts.map((t) => [String(t.symbol), t]))),
  },

  // ==== 2.1 the token record ====
  {
    name: 'rest.record-camelcase-names',
    kind: 'faulty',
    section: '2.1',
    only: ['rest', 'cross'],
    what: "every record's fields under protojson's lowerCamelCase names (contractAddress, iconUrl, …): a grpc-gateway marshaling without UseProtoNames; one fault, one failure",
    roots: 1,
    oneRoot: { failed: ['rest.list.schema'], blockedBy: 'rest.list.schema', blockedAtLeast: 20 },
    rest: protojsonNames((field) => field.includes('_')),
  },
  {
    name: 'rest.record-camelcase-contract-address',
    kind: 'faulty',
    section: '2.1',
    only: ['rest', 'cross'],
    what: 'every record has contractAddress (protojson\'s name) in place of contract_address: said once, not as seven records whose contract_address is its proto3 default ""',
    roots: 1,
    oneRoot: { failed: ['rest.list.schema'], blockedBy: 'rest.list.schema', blockedAtLeast: 7 },
    rest: protojsonNames((field) => field === 'contract_address'),
  },
  {
    name: 'rest.multiplier-raw-1e18',
    kind: 'faulty',
    section: '2.1',
    only: ['rest', 'cross'],
    what: 'multiplier is the raw 18-decimal fixed-point integer (1e18 for 1.0)',
    rest: eachToken((t) => (t.multiplier = Number(t.multiplier) * 1e18)),
  },
  {
    name: 'rest.nav-updated-at-no-offset',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'nav_price_updated_at without an offset ("2026-01-01T10:00:00")',
    rest: eachToken((t) => (t.nav_price_updated_at = String(t.nav_price_updated_at).replace(/(Z|[+-]\d\d:\d\d)$/, ''))),
  },
  {
    name: 'rest.nav-updated-at-future',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'nav_price_updated_at 30 days in the future',
    rest: oneToken((t) => (t.nav_price_updated_at = iso(Date.now() + 30 * 86_400_000).replace(/\.\d+Z$/, 'Z'))),
  },
  {
    name: 'rest.total-supply-raw',
    kind: 'faulty',
    section: '2.1',
    only: ['rest', 'cross'],
    what: 'total_supply is the raw integer, not normalized by decimals',
    rest: eachToken((t) => (t.total_supply = Number(t.total_supply) * 10 ** Number(t.decimals))),
  },
  {
    name: 'rest.total-supply-as-shares',
    kind: 'faulty',
    section: '2.1',
    only: ['rest', 'cross'],
    what: 'total_supply is the share count (total_supply × multiplier), not the token-unit amount 2.1 asks for',
    // Said as the share count: on NVDA (multiplier 10) too, never read as a power-of-ten slip alone,
    // and on the records whose multiplier is no power of ten (MSFT 1.0237), which nothing else catches.
    saying: "share count \\(the chain's amount × multiplier 1\\.0237\\)",
    rest: eachToken((t) => (t.total_supply = Number(t.total_supply) * Number(t.multiplier))),
  },
  {
    name: 'rest.decimals-wrong',
    kind: 'faulty',
    section: '2.1',
    only: ['rest', 'cross'],
    what: 'decimals does not match the contract (18 <-> 6 swapped)',
    rest: eachToken((t) => (t.decimals = t.decimals === 18 ? 6 : 18)),
  },

  {
    name: 'rest.address-too-short',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'a contract_address of 19 bytes (last byte cut)',
    rest: oneToken((t) => (t.contract_address = String(t.contract_address).slice(0, -2))),
  },

  // A violation seen before a throttle stands (the run's evidence keeps it): two behaviours at
  // once, one of them in time, so code. The list's first answer is an unexpected failure in the
  // wrong shape (7.1); every answer after it is throttled for good (429, Retry-After: 0).
  {
    name: 'rest.list-failure-html-then-throttled',
    kind: 'faulty',
    section: '7',
    only: ['rest'],
    what: 'the list answers its first GET with a 500 HTML page, and every request after it with 429 (Retry-After: 0) for good',
    rest: (() => {
      let answered = false;
      return async (req: RestRequest) => {
        if (!answered && isList(req) && req.method === 'GET') {
          answered = true;
          return Raw.text(500, 'text/html', '<html><body><h1>500 Internal Server Error</h1></body></html>');
        }
        return new Raw(429, { 'content-type': 'application/json', 'retry-after': '0' }, '{"code":8,"message":"rate limit exceeded","details":[]}');
      };
    })(),
  },

  // ==== transport faults on the REST interface ====
  {
    name: 'rest.list-truncated-json',
    kind: 'faulty',
    section: '4.1',
    only: ['rest'],
    what: 'the 200 body is cut off halfway (application/json, invalid JSON)',
    rest: async (req, next) => {
      const r = await next();
      return req.method === 'GET' && isList(req) && r.status === 200 ? new Raw(200, r.headers, r.body.slice(0, Math.floor(r.body.length / 2))) : r;
    },
  },
  {
    name: 'rest.connection-reset',
    kind: 'faulty',
    section: '4.1',
    only: ['rest', 'cross'],
    what: 'the REST server resets every connection',
    oneRoot: { failed: ['rest.list.status-200'], blockedBy: { unreachable: 'rest' }, blockedAtLeast: 35 },
    rest: async () => RESET,
  },
  {
    name: 'rest.list-hangs',
    kind: 'faulty',
    section: '4.1',
    only: ['rest'],
    what: 'GET of the list never answers',
    args: ['--timeout-ms', '1000'],
    rest: answerList(() => HANG),
  },

  // ==== 5.1 REST needs no API key ====
  {
    name: 'rest.api-key-required',
    kind: 'faulty',
    section: '5.1',
    only: ['rest'],
    what: 'GET without an X-API-Key header answers 401',
    // One failure citing 5.1: the status check and every check that needed the list are blocked by it.
    oneRoot: { failed: ['rest.list.no-credentials'], blockedBy: 'rest.list.no-credentials', blockedAtLeast: 25 },
    rest: async (req, next) =>
      req.headers['x-api-key'] || req.headers.authorization ? next() : Raw.json(401, { code: 16, message: 'missing API key', details: [] }),
  },

  // ==== 4.2 the JSON-RPC envelope ====
  { name: 'rpc.connection-reset', kind: 'faulty', section: '4.2', only: ['rpc'], what: 'the node resets every connection', rpc: async () => RESET },

  {
    name: 'rpc.truncated-json',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    what: 'answers are cut off after 20 bytes',
    rpc: everyAnswer((e) => Raw.text(200, 'application/json', JSON.stringify(e).slice(0, 20))),
  },

  // ==== 4.5 eth_getTransactionCount ====
  {
    name: 'rpc.nonce-reset',
    kind: 'faulty',
    section: '4.5',
    only: ['rpc'],
    what: 'eth_getTransactionCount resets the connection',
    rpc: answerCall('eth_getTransactionCount', () => RESET),
  },

  {
    name: 'rpc.nonce-pending-pool-only',
    kind: 'faulty',
    section: '4.5',
    only: ['rpc'],
    what: '"pending" counts only the pool\'s transactions, not the sealed nonce (pending < latest for active senders)',
    rpc: async (call, next) => {
      if (call.method !== 'eth_getTransactionCount' || !isPending(call)) return next();
      const [pending, latest] = [await next(), await next({ ...call, params: [call.params[0], 'latest'] })];
      if (pending instanceof Raw || latest instanceof Raw || typeof pending.result !== 'string' || typeof latest.result !== 'string') return pending;
      return { ...pending, result: '0x' + (hexInt(pending.result) - hexInt(latest.result)).toString(16) };
    },
  },

  // ==== 4.6 eth_getCode ====
  {
    name: 'rpc.code-odd-length',
    kind: 'faulty',
    section: '4.6',
    only: ['rpc'],
    what: 'contract bytecode loses its last nibble (odd-length hex)',
    rpc: onResult('eth_getCode', (r) => (isEmptyCode(r) ? r : String(r).slice(0, -1))),
  },
  {
    name: 'rpc.code-crashes-node',
    kind: 'faulty',
    section: '4.6',
    only: ['rpc'],
    // Two checks that call it and two that do not, run side by side: each crash costs a restart.
    grep: '^rpc\\.(getCode\\.block\\.(latest|pending)|getTransactionCount\\.block\\.(latest|pending))$',
    // The calls in flight when it went down are sent again one at a time once it is back: judged on their answers, never blamed for it.
    mustPass: '^rpc\\.getTransactionCount\\.block\\.(latest|pending)$',
    what: 'eth_getCode takes the node down: it resets every connection for 1 s, then answers again (restarted by its supervisor)',
    rpc: (() => {
      let downUntil = 0;
      return async (call, next) => {
        if (Date.now() < downUntil) return RESET;
        if (call.method !== 'eth_getCode') return next();
        downUntil = Date.now() + 1000;
        return RESET;
      };
    })(),
  },
  {
    name: 'rpc.pending-state-without-sealed-code',
    kind: 'faulty',
    section: '1.4',
    only: ['rpc'],
    what: 'eth_getCode at "pending" answers "0x" for every contract already sealed (a pending state holding only what the pre-confirmed transactions touched)',
    rpc: async (call, next) => {
      if (call.method !== 'eth_getCode' || !isPending(call)) return next();
      const latest = await next({ ...call, params: [call.params[0], 'latest'] });
      if (latest instanceof Raw || typeof latest.result !== 'string' || latest.result === '0x') return next();
      return { ...latest, result: '0x' };
    },
  },
  {
    name: 'rpc.pending-estimate-without-sealed-code',
    kind: 'faulty',
    section: '1.4',
    only: ['rpc'],
    what: 'eth_estimateGas at "pending" runs calls against a state without the sealed contracts: a call into one is estimated as a plain transfer (21000)',
    rpc: async (call, next) => {
      const tx = call.params[0];
      if (call.method !== 'eth_estimateGas' || !isPending(call) || typeof tx !== 'object' || tx === null || Array.isArray(tx) || typeof tx.to !== 'string')
        return next();
      const code = await next({ ...call, method: 'eth_getCode', params: [tx.to, 'latest'] });
      if (code instanceof Raw || typeof code.result !== 'string' || code.result === '0x') return next();
      return { jsonrpc: '2.0', id: call.id ?? null, result: '0x5208' };
    },
  },
  {
    name: 'rpc.code-hangs',
    kind: 'faulty',
    section: '4.6',
    only: ['rpc'],
    what: 'eth_getCode never answers',
    args: ['--timeout-ms', '1000'],
    rpc: answerCall('eth_getCode', () => HANG),
  },

  // ==== 4.3 / 2.4 eth_getBlockReceipts ====
  {
    name: 'rpc.receipts-wrong-block-number',
    kind: 'faulty',
    section: '4.3',
    only: ['rpc'],
    what: 'receipts name the next block as their blockNumber',
    rpc: onResult('eth_getBlockReceipts', (rs) => (rs as Rec[]).map((r) => ({ ...r, blockNumber: '0x' + (hexInt(r.blockNumber) + 1n).toString(16) }))),
  },
  {
    name: 'rpc.receipts-one-dropped',
    kind: 'faulty',
    section: '4.3',
    only: ['rpc'],
    what: 'the last receipt of a block is missing',
    rpc: onResult('eth_getBlockReceipts', (rs) => (rs as Rec[]).slice(0, -1)),
  },
  {
    name: 'rpc.latest-receipts-stale-backend',
    kind: 'faulty',
    section: '4.3',
    only: ['rpc'],
    grep: '^rpc\\.getBlockReceipts\\.block\\.latest$',
    what: 'one backend of two behind a balancer answers eth_getBlockReceipts("latest") with the receipts of the block two below the head (every other such read)',
    rpc: (() => {
      let reads = 0;
      return async (call, next) => {
        if (call.method !== 'eth_getBlockReceipts' || call.params[0] !== 'latest' || reads++ % 2 === 1) return next();
        const head = await headOf(next);
        return head === undefined || head < 2n ? next() : next({ ...call, params: [hex(head - 2n)] });
      };
    })(),
  },
  {
    name: 'rpc.latest-receipts-ahead-backend',
    kind: 'faulty',
    section: '4.3',
    only: ['rpc'],
    grep: '^rpc\\.getBlockReceipts\\.block\\.latest$',
    what: 'one backend of two behind a balancer numbers the receipts of eth_getBlockReceipts("latest") two past the head (every other such read)',
    rpc: (() => {
      let reads = 0;
      return onResult(
        'eth_getBlockReceipts',
        (rs) => (rs as Rec[]).map((r) => ({ ...r, blockNumber: hex(hexInt(r.blockNumber) + 2n) })),
        (call) => call.params[0] === 'latest' && reads++ % 2 === 0,
      );
    })(),
  },
  {
    name: 'rpc.stale-backend-unknown-block',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    grep: '^rpc\\.history\\.',
    live: 'blocks with transactions two below a moving head',
    saying:
      'below the sealed head 0x[0-9a-f]+ read before the call with eth_getBlockByNumber\\("latest"\\) \\(the head read after: 0x[0-9a-f]+\\): every backend within a block of that head has it',
    what: 'one backend of two behind a balancer is three blocks behind: every other read at a block number calls the blocks it lacks unknown ("header not found", null for receipts), two below the head too',
    rpc: (() => {
      let reads = 0;
      return blocksBehind(
        3n,
        (call) => call.method in BLOCK_PARAM && /^0x[0-9a-f]+$/i.test(String(call.params[BLOCK_PARAM[call.method]])) && reads++ % 2 === 0,
      );
    })(),
  },
  // ==== pre-confirmed state ignored: "pending" answered from "latest" (needs a signer) ====
  // Each caught by its own check alone, the other three judged from the same pass and passed.
  {
    name: 'preconf.pending-as-latest.eth_getTransactionCount',
    kind: 'faulty',
    section: '4.5',
    only: ['preconf'],
    mustPass: '^preconf\\.(code|estimate|receipts)\\.',
    saying: TWICE_UNSEEN,
    what: 'the pending count ignores pre-confirmed transactions',
    rpc: pendingAsLatest('eth_getTransactionCount'),
  },
  {
    name: 'preconf.pending-as-latest.eth_getCode',
    kind: 'faulty',
    section: '4.6',
    only: ['preconf'],
    mustPass: '^preconf\\.(nonce|estimate|receipts)\\.',
    saying: TWICE_UNSEEN,
    what: 'pending code ignores pre-confirmed deployments',
    rpc: pendingAsLatest('eth_getCode'),
  },
  {
    name: 'preconf.pending-as-latest.eth_getBlockReceipts',
    kind: 'faulty',
    section: '4.3',
    only: ['preconf'],
    mustPass: '^preconf\\.(nonce|code|estimate)\\.',
    saying: TWICE_UNSEEN,
    what: 'pending receipts are those of the latest sealed block',
    rpc: pendingAsLatest('eth_getBlockReceipts'),
  },
  {
    name: 'preconf.pending-as-latest.eth_estimateGas',
    kind: 'faulty',
    section: '4.4',
    only: ['preconf'],
    mustPass: '^preconf\\.(nonce|code|receipts)\\.',
    saying: TWICE_UNSEEN,
    what: 'pending estimates ignore pre-confirmed state',
    rpc: pendingAsLatest('eth_estimateGas'),
  },
  // Direct evidence from the node's own answers: the count it gives as the next nonce.
  {
    name: 'preconf.pending-count-below-latest',
    kind: 'faulty',
    section: '4.5',
    only: ['preconf'],
    saying: COUNT_BELOW_LATEST,
    oneRoot: NONCE_ROOT,
    what: 'the pending count is one below the latest count read just before it',
    rpc: onResult('eth_getTransactionCount', oneLess, isPending),
  },
  {
    name: 'preconf.pending-nonce-too-low',
    kind: 'faulty',
    section: '4.5',
    only: ['preconf'],
    saying: NONCE_TOO_LOW,
    oneRoot: NONCE_ROOT,
    what: 'both counts lag one behind: the pending count is a used nonce, and sending with it fails "nonce too low"',
    rpc: onResult('eth_getTransactionCount', oneLess),
  },

  // ==== 4.5: other senders' pre-confirmed transactions in the pending count ====
  {
    name: 'rpc.pending-count-own-pool-only',
    kind: 'faulty',
    section: '4.5',
    only: ['rpc'],
    grep: '^rpc\\.getTransactionCount\\.',
    live: "another sender's transactions pre-confirmed, then sealed: the count is judged across seals",
    what: 'a replica counting only its own pool: the pending count of another sender leaves out its pre-confirmed transactions (answered as "latest")',
    rpc: pendingAsLatest('eth_getTransactionCount'),
  },
  {
    name: 'rpc.pending-count-stale-state',
    kind: 'faulty',
    section: '4.5',
    only: ['rpc'],
    grep: '^rpc\\.getTransactionCount\\.pending-ge-latest$',
    what: 'one backend of two behind a balancer answers eth_getTransactionCount at "pending" from a pending state left three blocks behind the head (every other such read)',
    rpc: (() => {
      let reads = 0;
      return async (call, next) => {
        if (call.method !== 'eth_getTransactionCount' || !isPending(call) || reads++ % 2 === 1) return next();
        const head = await headOf(next);
        return head === undefined || head < 3n ? next() : next({ ...call, params: [call.params[0], hex(head - 3n)] });
      };
    })(),
  },
  {
    name: 'rpc.pending-code-own-pool-only',
    kind: 'faulty',
    section: '4.6',
    only: ['rpc'],
    grep: '^rpc\\.getCode\\.',
    live: "another sender's deployments pre-confirmed, then sealed: the code is judged across seals",
    what: 'a replica whose pending code comes from its own pool: "0x" at "pending" for contracts another sender deployed in pre-confirmed transactions (answered as "latest")',
    rpc: pendingAsLatest('eth_getCode'),
  },
  {
    name: 'ok.pending-count-400ms-late',
    kind: 'conformant',
    only: ['rpc'],
    grep: '^rpc\\.getTransactionCount\\.',
    mustPass: '^rpc\\.getTransactionCount\\.(pending-ge-latest|pending-counts-preconfirmed)$',
    live: "another sender's transactions pre-confirmed, then sealed: the count is judged across seals",
    what: 'a backend whose pending count includes a pre-confirmed transaction 400 ms after the pending block shows it (backends apart behind one address)',
    rpc: pendingCountLagging(400),
  },

  // ==== 4.2: a node that ignores the block parameter answers from the head ====
  {
    name: 'rpc.block-param-ignored',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    what: 'every block parameter of the four methods is answered as "latest" (state and receipts from the head)',
    rpc: rewriteCall(Object.keys(BLOCK_PARAM), (c) => ((c.params[BLOCK_PARAM[c.method]] = 'latest'), c)),
  },
  // ==== providers: pruned history, throttling; load balancers ====
  {
    name: 'rpc.pruned-history-archive',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    args: ['--archive'],
    what: 'a full node (state kept for 16 blocks: "missing trie node" at "earliest" and older blocks), run with --archive',
    rpc: prunedState(16n),
  },
  // ======================== conformant variants: must exit 0 ========================
  // Providers and load balancers are not the node's fault (throttled answers are retried by
  // the HTTP layer; skew re-read; pruned history out of scope without --archive).
  {
    name: 'ok.rpc-429-retry-after',
    kind: 'conformant',
    only: ['rpc'],
    grep: '^rpc\\.(envelope|getTransactionCount|history\\.getTransactionCount)\\.',
    mustPass: '^rpc\\.(envelope\\.http-200|getTransactionCount\\.block\\.head-number|history\\.getTransactionCount\\.before-block)$',
    what: 'a provider answers every 5th distinct call HTTP 429 with Retry-After: 1, then serves it',
    rpc: onceEvery(5, (c) => new Raw(429, { 'content-type': 'application/json', 'retry-after': '1' }, JSON.stringify(rpcError(c, 429, 'Too Many Requests')))),
  },
  {
    name: 'ok.rpc-32005-or-503-once',
    kind: 'conformant',
    only: ['rpc'],
    grep: '^rpc\\.(envelope|getCode|history\\.getCode)\\.',
    mustPass: '^rpc\\.(envelope\\.jsonrpc-version|getCode\\.block\\.head-number|history\\.getCode\\.at-creation)$',
    what: 'every 4th distinct call answered once with JSON-RPC -32005 "rate limit exceeded" (HTTP 200) or, alternately, HTTP 503 without Retry-After',
    rpc: onceEvery(4, (c, k) =>
      k % 2 ? rpcError(c, -32005, 'rate limit exceeded') : Raw.text(503, 'text/html', '<html><body>503 Service Temporarily Unavailable</body></html>'),
    ),
  },
  {
    name: 'ok.rpc-dropped-connection-once',
    kind: 'conformant',
    only: ['rpc'],
    grep: '^rpc\\.(envelope|getCode|getTransactionCount)\\.',
    mustPass: '^rpc\\.(envelope\\.(http-200|jsonrpc-version)|getCode\\.block\\.(latest|head-number)|getTransactionCount\\.block\\.earliest)$',
    what: 'every 4th distinct call meets a connection reset once (a keep-alive race behind a load balancer); the read sent again is answered',
    rpc: onceEvery(4, () => RESET),
  },
  {
    name: 'ok.rest-429-rpc-status',
    kind: 'conformant',
    only: ['rest'],
    mustPass: '^rest\\.list\\.(status-200|schema)$',
    what: 'the REST gateway rate-limits at 4 requests per second: 429 with an rpcStatus body and Retry-After: 1',
    rest: restRateLimit(4),
  },
  {
    name: 'ok.rpc-credentials-refused-at-open',
    kind: 'conformant',
    only: ['rpc'],
    what: 'a dedicated node answers HTTP 401 with a Bearer challenge to every call (an expired token): credentials are outside the spec (5.3), refused where the run opens',
    refusedAtOpen: /--rpc-url refused the run's credentials: eth_chainId was answered HTTP 401 .*--rpc-header .*RPC_HEADERS/,
    rpc: async () => new Raw(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' }, '{"error":"token expired"}'),
  },
  {
    name: 'ok.rpc-credentials-expire-mid-run',
    kind: 'conformant',
    only: ['rpc'],
    incomplete: true,
    roots: 1,
    grep: '^rpc\\.(envelope\\.(http-200|jsonrpc-version)|getCode\\.block\\.latest|history\\.getCode\\.earliest|errors\\.malformed-block\\.envelope)$',
    what: 'the token expires after the run opened: every call after eth_chainId answered HTTP 401 (outside the spec: not judged, one root cause)',
    mustBe: [['^rpc\\.', 'inconclusive', 'credentials']],
    rpc: async (c, next) =>
      c.method === 'eth_chainId' ? next() : new Raw(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }, 'Unauthorized'),
  },
  {
    name: 'ok.rpc-gateway-down-mid-run',
    kind: 'conformant',
    only: ['rpc'],
    incomplete: true,
    roots: 1,
    grep: '^rpc\\.(envelope\\.(http-200|jsonrpc-version)|getCode\\.block\\.latest)$',
    what: 'the backend goes down after the run opened: every call after eth_chainId answered HTTP 504',
    mustBe: [['^rpc\\.', 'inconclusive', 'gateway']],
    rpc: async (c, next) => (c.method === 'eth_chainId' ? next() : Raw.text(504, 'text/html', '<html><body>504 Gateway Time-out</body></html>')),
  },
  {
    name: 'ok.rest-gateway-down-mid-run',
    kind: 'conformant',
    only: ['rest'],
    incomplete: true,
    roots: 1,
    grep: '^rest\\.list\\.',
    what: "the API answers the run's first request (the probe's list, judged by the list checks), then the gateway answers HTTP 503 to every later one (its backend went down mid-run): not the spec's, said once",
    mustBe: [['^rest\\.list\\.no-credentials$', 'inconclusive', 'gateway']],
    rest: afterFirst(async () =>
      Raw.text(503, 'text/html', '<html><body><h1>503 Service Unavailable</h1>No server is available to handle this request.</body></html>'),
    ),
  },
  {
    name: 'ok.rpc-node-down-mid-run',
    kind: 'conformant',
    only: ['rpc'],
    incomplete: true,
    roots: 1,
    grep: '^rpc\\.(envelope\\.(http-200|jsonrpc-version)|getCode\\.block\\.latest)$',
    what: "the node answers the run's probe (eth_chainId), then resets every connection, eth_chainId asked again too (a node restarting mid-run): not the spec's, said once",
    mustBe: [['^rpc\\.', 'inconclusive', 'gateway']],
    rpc: (() => {
      let first = true;
      return async (_c, next) => (first ? ((first = false), next()) : RESET);
    })(),
  },
  {
    name: 'ok.rest-server-down-mid-run',
    kind: 'conformant',
    only: ['rest'],
    incomplete: true,
    roots: 1,
    grep: '^rest\\.list\\.',
    what: "the API answers the run's first request (the probe's list, judged by the list checks), then resets every connection (its server went down mid-run): not the spec's, said once",
    mustBe: [['^rest\\.list\\.no-credentials$', 'inconclusive', 'gateway']],
    rest: afterFirst(async () => RESET),
  },
  {
    name: 'ok.lb-one-block-apart',
    kind: 'conformant',
    only: ['rpc'],
    mustPass:
      '^rpc\\.(getTransactionCount|getCode|estimateGas|getBlockReceipts)\\.block\\.(latest|head-number)$|^rpc\\.history\\.(getTransactionCount|getBlockReceipts)\\.',
    live: 'a backend a block behind needs blocks to be sealed',
    what: 'a load balancer whose second backend imports each block 400 ms late: half the calls meet "latest" one behind and the head block unknown',
    rpc: laggingBackend(400),
  },
  {
    name: 'ok.pruned-history',
    kind: 'conformant',
    only: ['rpc'],
    mustPass: '^rpc\\.history\\.getTransactionCount\\.(before|at)-block$|^rpc\\.getCode\\.block\\.head-number$',
    what: 'a full node keeping state for 16 blocks: "missing trie node" at "earliest" and older blocks (no --archive: out of scope)',
    mustBe: [
      [
        '^rpc\\.(getTransactionCount|getCode|estimateGas)\\.block\\.earliest$|^rpc\\.history\\.(getTransactionCount|getCode|estimateGas)\\.earliest$',
        'skipped',
        'out-of-scope',
        '--archive',
      ],
    ],
    rpc: prunedState(16n),
  },
  {
    name: 'ok.history-expired',
    kind: 'conformant',
    only: ['rpc'],
    grep: '^rpc\\.(history\\.|getTransactionCount\\.block\\.latest$)',
    mustPass: '^rpc\\.getTransactionCount\\.block\\.latest$',
    what: 'history expiry (EIP-4444): no block body or receipts more than 1 below the head ("pruned history unavailable", code 4444); the history checks say so, out of scope without --archive',
    mustBe: [['^rpc\\.history\\.', 'skipped', 'out-of-scope', '--archive']],
    rpc: historyExpired(1n),
  },
  {
    name: 'ok.reordered-list',
    kind: 'conformant',
    only: ['rest', 'cross'],
    mustPass: '^rest\\.list\\.schema$|^cross\\.token\\.has-code\\.latest$',
    what: 'records in reverse order',
    rest: tokens((ts) => [...ts].reverse()),
  },
  {
    name: 'ok.stale-nav',
    kind: 'conformant',
    only: ['rest', 'cross'],
    mustPass: '^rest\\.token\\.(field\\.nav-price-updated-at|nav-price-updated-at\\.not-future)$',
    what: 'NAV last updated 40 days ago (a feed outside market hours; 2.1 rule 1)',
    rest: eachToken((t) => (t.nav_price_updated_at = iso(Date.now() - 40 * 86_400_000).replace(/\.\d+Z$/, 'Z'))),
  },
  {
    name: 'ok.fractional-seconds',
    kind: 'conformant',
    only: ['rest', 'cross'],
    mustPass: '^rest\\.token\\.(field\\.nav-price-updated-at|nav-price-updated-at\\.not-future)$',
    what: 'timestamps with fractional seconds (".123456Z")',
    rest: eachToken((t) => (t.nav_price_updated_at = String(t.nav_price_updated_at).replace(/Z$/, '.123456Z'))),
  },
  {
    name: 'ok.offset-plus-05-30',
    kind: 'conformant',
    only: ['rest'],
    mustPass: '^rest\\.token\\.(field\\.nav-price-updated-at|nav-price-updated-at\\.not-future)$',
    what: 'timestamps in local time with a "+05:30" offset',
    rest: eachToken((t) => {
      const ms = Date.parse(String(t.nav_price_updated_at)) + 330 * 60_000;
      t.nav_price_updated_at = iso(ms).replace(/\.\d+Z$/, '+05:30');
    }),
  },
  {
    name: 'ok.proto3-omits-empty-paused-features',
    kind: 'conformant',
    only: ['rest', 'cross'],
    mustPass: '^rest\\.token\\.(field\\.paused-features|paused-features\\.int64-range)$|^rest\\.list\\.schema$',
    what: 'records with no paused feature omit paused_features (protobuf JSON leaves out the default [])',
    rest: eachToken((t) => {
      if ((t.paused_features as Json[]).length === 0) delete t.paused_features;
    }),
  },
  {
    name: 'ok.revert-reason-in-message',
    kind: 'conformant',
    only: ['rpc'],
    mustPass: '^rpc\\.estimateGas\\.revert\\.|^rpc\\.envelope\\.error-response$',
    what: 'the reason appended to the message, anvil style ("execution reverted: revert: conformance")',
    rpc: onError('eth_estimateGas', (err, e) => ({
      ...e,
      error: { ...err, message: `execution reverted: revert: ${String(err.message).replace(/^execution reverted:?\s*/, '') || 'conformance'}` },
    })),
  },
  {
    name: 'ok.revert-plain-message-no-data',
    kind: 'conformant',
    only: ['rpc'],
    mustPass: '^rpc\\.estimateGas\\.revert\\.(code|message)$|^rpc\\.envelope\\.error-response$',
    what: 'the revert is exactly {code: -32000, message: "execution reverted"}: no reason, no data (data is optional)',
    rpc: onError('eth_estimateGas', (err, e) => ({ ...e, error: { code: err.code, message: 'execution reverted' } })),
  },
  {
    name: 'ok.content-type-charset',
    kind: 'conformant',
    only: ['rest', 'rpc'],
    mustPass: '^rest\\.list\\.content-type$|^rpc\\.envelope\\.content-type$',
    what: 'application/json; charset=utf-8 on every answer',
    rest: async (_req, next) => {
      const r = await next();
      return r.contentType === 'application/json' ? new Raw(r.status, { ...r.headers, 'content-type': 'application/json; charset=utf-8' }, r.body) : r;
    },
    rpc: everyAnswer((e) => Raw.json(200, e, 'application/json; charset=utf-8')),
  },
  {
    name: 'ok.receipts-reordered',
    kind: 'conformant',
    only: ['rpc'],
    what: 'block receipts in reverse order (4.3 states no order)',
    rpc: onResult('eth_getBlockReceipts', (rs) => [...(rs as Rec[])].reverse()),
    mustPass: '^rpc\\.getBlockReceipts\\.(block\\.(latest|head-number)|nonempty-block)$',
  },
  // Not run with preconf: its observations need ~1.7 s between seals at 150 ms per round trip,
  // more than the 1.2 s block time of the test's reference (they would only be inconclusive).
  {
    name: 'ok.latency-150ms',
    kind: 'conformant',
    only: ['rest', 'rpc', 'cross'],
    mustPass: '^rest\\.list\\.schema$|^rpc\\.getBlockReceipts\\.block\\.latest$|^cross\\.token\\.has-code\\.',
    what: '150 ms added to every answer',
    latencyMs: 150,
  },
  // Flashblocks nodes: a transaction may land several flashblocks after acceptance,
  // and the pre-confirmed block may be numbered past head + 1 while the canonical head lags.
  {
    name: 'ok.preconf-2-flashblocks-late',
    kind: 'conformant',
    only: ['preconf'],
    mustPass: '^preconf\\.(nonce|code|estimate|receipts)\\.',
    what: 'submissions acknowledged at once, pre-confirmed two flashblocks later than the next one (earlier flashblocks full)',
    rpc: async (call, next, ctx) => {
      if (call.method !== 'eth_sendRawTransaction') return next();
      ctx.forwardLater(call, 2 * 200);
      return { jsonrpc: '2.0', id: call.id ?? null, result: keccak256(call.params[0] as Hex) };
    },
  },
  {
    name: 'ok.pending-block-built-before-receipts',
    kind: 'conformant',
    only: ['rpc'],
    grep: '^rpc\\.getBlockReceipts\\.block\\.pending$',
    mustPass: '^rpc\\.getBlockReceipts\\.block\\.pending$',
    args: ['--samples', '30'],
    live: 'the answers right after a seal, at --samples 30 (a sampling window of two block intervals)',
    what: 'right after a seal "pending" receipts fall back to the new head while eth_getBlockByNumber("pending") already shows the empty block being built (head + 1), judged at --samples 30',
    rpc: pendingBlockBuiltBeforeReceipts,
  },
  {
    name: 'ok.preconf-pending-block-ahead',
    kind: 'conformant',
    only: ['preconf'],
    mustPass: '^preconf\\.receipts\\.',
    what: 'the pre-confirmed block numbered head + 2 by eth_getBlockByNumber("pending") and its receipts (the canonical head lags one block)',
    rpc: onResult(
      ['eth_getBlockByNumber', 'eth_getBlockReceipts'],
      (r, c) =>
        c.method === 'eth_getBlockReceipts'
          ? (r as Rec[]).map((x) => ({ ...x, blockNumber: plusOne(x.blockNumber) }))
          : { ...(r as Rec), number: plusOne((r as Rec).number) },
      (c) => c.params[0] === 'pending',
    ),
  },
  // A load balancer a block apart in front of a Flashblocks node: reads right after a
  // seal may meet the backend that has not imported the sealing block yet (its "latest" one
  // behind, the new block unknown). The pass re-reads after-seal state before judging it.
  {
    name: 'ok.preconf-lb-one-block-apart',
    kind: 'conformant',
    only: ['preconf'],
    mustPass: '^preconf\\.(nonce|code|estimate|receipts)\\.',
    what: 'a load balancer whose second backend imports each block 400 ms late, in front of the Flashblocks node: half the calls meet "latest" one behind and the newest block unknown',
    rpc: laggingBackend(400),
  },
  {
    name: 'ok.preconf-250ms-late',
    kind: 'conformant',
    only: ['rpc', 'preconf'],
    mustPass: '^preconf\\.(nonce|code|estimate|receipts)\\.',
    what: 'submissions acknowledged at once, pre-confirmed state visible 250 ms later',
    rpc: async (call, next, ctx) => {
      if (call.method !== 'eth_sendRawTransaction') return next();
      // What a sequencer front end does: hash the raw bytes, answer, hand the transaction on;
      // "pending" shows it only after the next refresh (about 200 ms, 4.5).
      ctx.forwardLater(call, 250);
      return { jsonrpc: '2.0', id: call.id ?? null, result: keccak256(call.params[0] as Hex) };
    },
  },

  // ---- REST: impossible times and scales, icon URL schemes, one failure per wrong type ----
  {
    name: 'rest.multiplier-scaled-twice',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'multiplier divided by 1e18 once too often (1.0 served as 1e-18)',
    rest: eachToken((t) => (t.multiplier = Number(t.multiplier) / 1e18)),
  },
  {
    name: 'rest.decimals-string-disagrees',
    kind: 'faulty',
    section: '2.1',
    only: ['rest', 'cross'],
    grep: '^cross\\.token\\.decimals\\.',
    what: 'decimals as a string that also disagrees with the contract ("17" for 18): the cross check compares the value and fails',
    rest: oneToken((t) => (t.decimals = String(Number(t.decimals) - 1))),
  },
  {
    name: 'ok.icon-url-plain-http',
    kind: 'conformant',
    only: ['rest'],
    mustPass: '^rest\\.token\\.icon-url\\.resource-url$',
    what: 'icon_url over plain http: a URL, so conformant (the preference for https is advisory only)',
    rest: eachToken((t) => (t.icon_url = String(t.icon_url).replace(/^https:/, 'http:'))),
  },

  // ==== what real nodes and gateways do, judged against 4.2-4.5 (answers of real peers) ====
  {
    name: 'rpc.receipts-router-own-id',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    what: "a method router passes the backend's eth_getBlockReceipts answers through with its own id (every other method echoes the request's)",
    rpc: (() => {
      let routed = 0;
      return onAnswer('eth_getBlockReceipts', (env) => ({ ...env, id: 900_000 + ++routed }));
    })(),
  },
  {
    name: 'rpc.receipts-gasused-cumulative',
    kind: 'faulty',
    section: '4.3',
    only: ['rpc', 'preconf'],
    grep: '^rpc\\.(getBlockReceipts|history\\.getBlockReceipts)\\.|^preconf\\.receipts\\.',
    what: "receipts carry cumulativeGasUsed as gasUsed: a block's receipts add up to more than its gasUsed",
    rpc: onResult('eth_getBlockReceipts', (rs) =>
      Array.isArray(rs) ? rs.map((r) => ({ ...(r as Rec), gasUsed: (r as Rec).cumulativeGasUsed ?? (r as Rec).gasUsed })) : rs,
    ),
  },
  {
    name: 'preconf.receipts-gasused-cumulative',
    kind: 'faulty',
    section: '2.4',
    only: ['preconf'],
    grep: '^preconf\\.receipts\\.',
    what: "receipts carry cumulativeGasUsed as gasUsed: the suite's later 0-value self-transfers show more than 0x5208",
    rpc: onResult('eth_getBlockReceipts', (rs) =>
      Array.isArray(rs) ? rs.map((r) => ({ ...(r as Rec), gasUsed: (r as Rec).cumulativeGasUsed ?? (r as Rec).gasUsed })) : rs,
    ),
  },
  {
    name: 'preconf.pending-receipts-numbered-as-head',
    kind: 'faulty',
    section: '4.3',
    only: ['preconf'],
    grep: '^preconf\\.receipts\\.',
    what: 'pending receipts numbered as the head while eth_getBlockByNumber("pending") numbers the pre-confirmed block head + 1',
    rpc: onResult(
      'eth_getBlockReceipts',
      (rs) => (Array.isArray(rs) ? rs.map((r) => ({ ...(r as Rec), blockNumber: `0x${(hexInt((r as Rec).blockNumber) - 1n).toString(16)}` })) : rs),
      isPending,
    ),
  },
  {
    name: 'preconf.pending-nonce-lowercase-only',
    kind: 'faulty',
    section: '4.5',
    only: ['preconf'],
    grep: '^preconf\\.nonce\\.',
    what: 'the pending count includes pool transactions only when the address is given in lowercase; checksummed, it is the latest count (EthereumJS 0.10)',
    rpc: rewriteCall(
      'eth_getTransactionCount',
      (c) => ((c.params[1] = 'latest'), c),
      (c) => isPending(c) && typeof c.params[0] === 'string' && c.params[0] !== c.params[0].toLowerCase(),
    ),
  },
  {
    name: 'preconf.code-missed-then-frozen',
    kind: 'faulty',
    section: '4.6',
    only: ['preconf'],
    grep: '^preconf\\.code\\.',
    args: ['--timeout-ms', '1000'],
    what: 'pending code ignores pre-confirmed deployments for two attempts, then the node stops answering during the third (ganache 7.9)',
    rpc: (() => {
      let sends = 0;
      const ignorePending = pendingAsLatest('eth_getCode');
      return async (call, next, ctx) => {
        if (call.method === 'eth_sendRawTransaction') sends++;
        // Two attempts, not one: the first is sent at once, and when a seal follows it too soon
        // its miss does not count; the second is sent right after a seal, and its miss does.
        if (sends > 2 * TX_PER_ATTEMPT) return HANG;
        return ignorePending(call, next, ctx);
      };
    })(),
  },
  {
    name: 'preconf.receipts-method-absent',
    kind: 'faulty',
    // An error where a valid call's result was due breaks the method's own rule (4.3), not the envelope.
    section: '4.3',
    only: ['preconf'],
    grep: '^preconf\\.receipts\\.',
    what: 'eth_getBlockReceipts does not exist (-32601) and eth_getBlockByNumber answers {}',
    rpc: async (call, next) => {
      if (call.method === 'eth_getBlockReceipts') return rpcError(call, -32601, 'the method eth_getBlockReceipts does not exist/is not available');
      if (call.method === 'eth_getBlockByNumber') return { jsonrpc: '2.0', id: call.id ?? null, result: {} };
      return next();
    },
  },
  {
    name: 'ok.estimate-refused-for-unfunded-sender',
    kind: 'conformant',
    only: ['rpc'],
    mustPass: '^rpc\\.estimateGas\\.(block|revert)\\.',
    what: 'eth_estimateGas from a sender without funds refused "insufficient funds for gas * price + value", even without fee fields (Tevm)',
    rpc: refuseUnfundedEstimate,
  },
  {
    name: 'rpc.estimate-refuses-fee-fields',
    kind: 'faulty',
    section: '2.5',
    only: ['rpc'],
    gap: 'No check sends gas, gasPrice, maxFeePerGas or maxPriorityFeePerGas in the transaction object (2.5 rows 3-6): a fee needs a sender funded for it (the read-only checks send from unfunded random addresses, and the pass sizes its transactions before it reads the fees), and a fee of 0 or below the base fee may rightly be refused as a transaction that could not be included, so a refusal is no evidence against 2.5',
    what: 'eth_estimateGas refuses a transaction object that carries gas, gasPrice, maxFeePerGas or maxPriorityFeePerGas (a gateway validating params against a call object without them)',
    rpc: async (call, next) => {
      const tx = call.params?.[0];
      if (call.method !== 'eth_estimateGas' || typeof tx !== 'object' || tx === null || Array.isArray(tx)) return next();
      const field = ['gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas'].find((f) => Object.hasOwn(tx, f));
      return field ? rpcError(call, -32602, `invalid argument 0: json: unknown field "${field}"`) : next();
    },
  },
  {
    // The same node as a public address: it serves eth_estimateGas without credentials (5.2) and
    // refuses the suite's unfunded random sender, as any node charging a gas price does.
    name: 'ok.public-estimate-refused-for-unfunded-sender',
    kind: 'conformant',
    only: ['rpc'],
    args: ['--profile', 'public'],
    grep: '^rpc\\.public\\.accepts\\.',
    mustPass: '^rpc\\.public\\.accepts\\.estimateGas$',
    what: 'a public node address refuses an eth_estimateGas from a sender without funds ("insufficient funds for gas * price + value", Tevm) and estimates it without "from"',
    rpc: refuseUnfundedEstimate,
  },
  {
    name: 'rpc.getCode-block-params-http-400',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    grep: '^rpc\\.(envelope\\.|getCode\\.block\\.)',
    what: 'eth_getCode refuses "safe", "finalized", "earliest" and a block number, each with HTTP 400 and a JSON-RPC error (Tevm), while every other call is answered: four faults, each stated, none blocked by another',
    roots: 4,
    oneRoot: {
      failed: ['rpc.getCode.block.earliest', 'rpc.getCode.block.finalized', 'rpc.getCode.block.head-number', 'rpc.getCode.block.safe'],
      blockedBy: 'rpc.envelope.http-200',
      blockedAtLeast: 0,
    },
    rpc: answerCall(
      'eth_getCode',
      (c) =>
        new Raw(
          400,
          { 'content-type': 'application/json' },
          JSON.stringify(rpcError(c, -32602, `Invalid params: block tag ${JSON.stringify(blockOf(c))} is not supported`)),
        ),
      (c) => blockOf(c) !== 'latest' && blockOf(c) !== 'pending',
    ),
  },
];

/** The whole catalogue: the code variants, then the records of ./records/ (one file per spec section). */
export const VARIANTS: Variant[] = [...CODE_VARIANTS, ...loadRecords()];

/** REST and cross checks use no signer and no timing: their variants may run side by side. */
export const restOnly = (v: Variant) => v.only.every((g) => g === 'rest' || g === 'cross') && !v.latencyMs;

/**
 * JSON-RPC variants that send no transaction and need no chain in motion (records, and code that
 * rewrites answers or the transport: throttling, hangs, resets): judged on the replay tier, the
 * reference held still (judge.ts holdStill) and its answers recorded once and replayed
 * (./replay.ts), side by side. A variant whose verdict needs seals says why in `live`.
 */
export const replayed = (v: Variant) => !v.live && !restOnly(v) && !v.only.includes('preconf');

/**
 * The catalogue in four shards, one test file each: REST variants (no signer, no timing: run
 * side by side), JSON-RPC records on the replay tier (side by side too), variants that send
 * transactions (the pre-confirmation pass), and the other JSON-RPC ones, live. Every variant is
 * in exactly one (catalogue.test.ts).
 */
export const SHARDS = {
  rest: restOnly,
  replay: replayed,
  preconf: (v: Variant) => !restOnly(v) && v.only.includes('preconf'),
  rpc: (v: Variant) => !restOnly(v) && !replayed(v) && !v.only.includes('preconf'),
} satisfies Record<string, (v: Variant) => boolean>;
