// The fault-injection catalogue: every way an implementer could get the spec slightly wrong
// (kind 'faulty': the suite must exit 1 with a failed required check citing `section`), and
// every way a conformant target may legitimately differ from the reference (kind
// 'conformant': the suite must exit 0). Each variant is a small rewrite applied by the
// loopback proxy in ./proxy.ts in front of the reference target.
//
// Read a variant as: name, what is wrong (or legitimately different), the section whose
// check must catch it, the groups to run, and the rewrite. `gap` marks a faulty variant no
// check catches yet (reported as a todo, never as a pass).
import { keccak256, getAddress, type Hex } from 'viem';
import type { Group, Interface } from '../../src/harness/check';
import type { Cause, ScopeFlag } from '../../src/harness/verdict';
import { HANG, RESET, Raw, type Answer, type Envelope, type Json, type RestMutation, type RestRequest, type RpcCall, type RpcMutation } from './proxy';
import { PRECONF_VARIANTS } from './catalogue-preconf';

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
  /** Conformant only: checks (id regex) that must have judged and passed, so exit 0 is earned. */
  mustPass?: string;
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

/** Rewrite every error (non-2xx) answer of the REST interface. */
const errors =
  (f: (res: Raw, body: unknown) => Raw): RestMutation =>
  async (req, next) => {
    const res = await next();
    return res.status >= 200 && res.status < 300 ? res : f(res, res.json());
  };

const iso = (ms: number) => new Date(ms).toISOString();
const HTML_500 = '<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1><p>nginx</p></body></html>';

/** Flip the case of one hex letter of an address: mixed case with a wrong EIP-55 checksum. */
function badChecksum(address: string): string {
  const good = getAddress(address);
  const i = [...good].findIndex((c, k) => k > 1 && /[a-fA-F]/.test(c));
  const c = good[i];
  return good.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + good.slice(i + 1);
}

/** Change the check digit of an ISIN so that the Luhn check fails. */
const badIsin = (isin: string) => isin.slice(0, 11) + String((Number(isin[11]) + 1) % 10);

// ---- JSON-RPC rewrites -------------------------------------------------------------------

const BLOCK_PARAM: Record<string, number> = { eth_getBlockReceipts: 0, eth_estimateGas: 1, eth_getTransactionCount: 1, eth_getCode: 1 };
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
/** Refuse the "pending" tag. */
const pendingRejected = (m: string): RpcMutation => answerCall(m, (c) => rpcError(c, -32602, 'invalid block tag "pending": unsupported'), isPending);
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
const headOf = async (next: (call?: RpcCall) => Promise<Envelope | Raw>): Promise<bigint | undefined> => {
  const h = await next({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] });
  return h instanceof Raw || typeof h.result !== 'string' ? undefined : hexInt(h.result);
};
const blockIndex = (call: RpcCall): number => (call.method in BLOCK_PARAM ? BLOCK_PARAM[call.method] : call.method === 'eth_getStorageAt' ? 2 : 1);
const hex = (n: bigint) => `0x${n.toString(16)}`;

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
    const mine = head - 1n;
    const reply = (result: Json): Envelope => ({ jsonrpc: '2.0', id: call.id ?? null, result });
    if (call.method === 'eth_blockNumber') return reply(hex(mine));
    const i = call.method === 'eth_getBlockByNumber' ? 0 : call.method in BLOCK_PARAM || STATE_READS.has(call.method) ? blockIndex(call) : -1;
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
  };
};

/**
 * A backend whose pre-confirmed count trails the pre-confirmed block by `lagMs`: a transaction
 * seen in the pending block counts at "pending" only `lagMs` after the proxy first saw it there
 * (backends a few hundred ms apart behind one address, each refreshed on its own).
 */
const pendingCountLagging = (lagMs: number): RpcMutation => {
  const firstSeen = new Map<string, number>();
  return async (call, next) => {
    if (call.method !== 'eth_getTransactionCount' || !isPending(call) || typeof call.params[0] !== 'string') return next();
    const account = call.params[0].toLowerCase();
    const block = await next({ jsonrpc: '2.0', id: 0, method: 'eth_getBlockByNumber', params: ['pending', true] });
    const now = Date.now();
    let countable: bigint | undefined;
    if (!(block instanceof Raw) && typeof block.result === 'object' && block.result !== null)
      for (const tx of ((block.result as Rec).transactions ?? []) as Rec[]) {
        if (typeof tx !== 'object' || String(tx.from).toLowerCase() !== account) continue;
        const key = `${account}:${String(tx.nonce)}`;
        if (!firstSeen.has(key)) firstSeen.set(key, now);
        const n = hexInt(tx.nonce);
        if (now - firstSeen.get(key)! >= lagMs && (countable === undefined || n + 1n > countable)) countable = n + 1n;
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

export const VARIANTS: Variant[] = [
  // Pre-confirmed state on real deployments and peers (backends apart, defaults, flashblocks, ganache).
  ...PRECONF_VARIANTS,
  // A fault once seen stands, whatever the target answers after it.
  ...FAULT_THEN_FACT,
  PROBE_SAW_IT,
  // ==== 4.1 the REST endpoint, its statuses and media types ====
  {
    name: 'rest.list-500-html',
    kind: 'faulty',
    section: '4.1',
    only: ['rest'],
    what: 'GET of the list answers 500 with an nginx HTML error page',
    oneRoot: { failed: ['rest.list.status-200'], blockedBy: 'rest.list.status-200', blockedAtLeast: 25 },
    rest: answerList(() => Raw.text(500, 'text/html', HTML_500)),
  },
  {
    name: 'rest.list-500-rpcstatus',
    kind: 'faulty',
    section: '4.1',
    only: ['rest', 'cross'],
    what: 'GET of the list answers 500 with an rpcStatus (a failing backend behind the gateway)',
    oneRoot: { failed: ['rest.list.status-200'], blockedBy: 'rest.list.status-200', blockedAtLeast: 30 },
    rest: answerList(() => Raw.json(500, { code: 13, message: 'upstream connect error', details: [] })),
  },
  {
    name: 'rest.list-200-text-html',
    kind: 'faulty',
    section: '4.1',
    only: ['rest'],
    what: 'the list is served with Content-Type text/html',
    rest: async (req, next) => {
      const r = await next();
      return req.method === 'GET' && isList(req) && r.status === 200 ? new Raw(200, { ...r.headers, 'content-type': 'text/html; charset=utf-8' }, r.body) : r;
    },
  },
  {
    name: 'rest.list-200-not-json',
    kind: 'faulty',
    section: '4.1',
    only: ['rest'],
    what: 'the list is an HTML page with status 200',
    rest: answerList(() => Raw.text(200, 'text/html', '<html><body><table><tr><td>AAPL</td></tr></table></body></html>')),
  },
  {
    name: 'rest.post-answered-200',
    kind: 'faulty',
    section: '4.1',
    only: ['rest'],
    what: 'POST on the read-only list answers 200 with the list',
    rest: onListMethod('POST', async (_req, get) => get()),
  },
  {
    name: 'rest.delete-answered-204',
    kind: 'faulty',
    section: '4.1',
    only: ['rest'],
    what: 'DELETE on the read-only list answers 204 No Content',
    rest: onListMethod('DELETE', async () => new Raw(204, {}, '')),
  },
  {
    name: 'rest.put-answered-200',
    kind: 'faulty',
    section: '4.1',
    only: ['rest'],
    what: 'PUT on the read-only list answers 200 {}',
    rest: onListMethod('PUT', async () => Raw.json(200, {})),
  },
  {
    name: 'rest.error-html',
    kind: 'faulty',
    section: '7',
    only: ['rest'],
    what: 'error answers are HTML pages, not rpcStatus JSON',
    rest: errors((r) => Raw.text(r.status, 'text/html', `<html><body><h1>${r.status}</h1></body></html>`)),
  },
  {
    name: 'rest.error-text-plain',
    kind: 'faulty',
    section: '4.1',
    only: ['rest'],
    what: 'error answers carry a JSON rpcStatus but Content-Type text/plain',
    rest: errors((r) => new Raw(r.status, { ...r.headers, 'content-type': 'text/plain' }, r.body)),
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
  {
    name: 'rest.tokens-missing',
    kind: 'faulty',
    section: '2.2',
    only: ['rest'],
    what: 'the records are under "data" instead of "tokens"',
    rest: listBody((b) => ({ data: b.tokens })),
  },
  { name: 'rest.bare-array', kind: 'faulty', section: '2.2', only: ['rest'], what: 'the body is a bare array of records', rest: listBody((b) => b.tokens) },
  {
    name: 'rest.duplicate-record',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'one record is listed twice (same contract_address)',
    rest: tokens((ts) => [...ts, ts[0]]),
  },

  // ==== 2.1 the token record ====
  { name: 'rest.record-missing-isin', kind: 'faulty', section: '2.1', only: ['rest'], what: 'one record has no isin', rest: oneToken((t) => delete t.isin) },
  {
    name: 'rest.record-missing-nav-updated-at',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'one record has no nav_price_updated_at',
    rest: oneToken((t) => delete t.nav_price_updated_at),
  },
  // Protobuf JSON leaves out default values: an absent field is its proto3 default, judged as sent.
  {
    name: 'rest.record-missing-contract-address',
    kind: 'faulty',
    section: '2.1',
    only: ['rest', 'cross'],
    what: 'one record has no contract_address (its proto3 default "" is no address)',
    rest: oneToken((t) => delete t.contract_address),
  },
  {
    name: 'rest.record-missing-multiplier',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'one record has no multiplier (its proto3 default 0 is not positive)',
    rest: oneToken((t) => delete t.multiplier),
  },
  {
    name: 'rest.record-missing-icon-url',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'one record has no icon_url (its proto3 default "" is no URL)',
    rest: oneToken((t) => delete t.icon_url),
  },
  {
    name: 'rest.symbol-empty',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'one record\'s symbol is "" (not a ticker)',
    rest: oneToken((t) => (t.symbol = '')),
  },
  {
    name: 'rest.name-empty',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'one record\'s name is "" (not the name of an equity)',
    rest: oneToken((t) => (t.name = '')),
  },
  {
    name: 'rest.name-missing',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'one record has no name (its proto3 default "" is no name)',
    rest: oneToken((t) => delete t.name),
  },
  {
    name: 'rest.decimals-null',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'decimals null for one record (null is not a proto3 default on the wire: a type error)',
    rest: oneToken((t) => (t.decimals = null)),
  },
  {
    name: 'rest.isin-bad-check-digit',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'one ISIN has a wrong check digit',
    rest: oneToken((t) => (t.isin = badIsin(String(t.isin)))),
  },
  {
    name: 'rest.isin-lowercase',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'ISINs are lower-cased',
    rest: eachToken((t) => (t.isin = String(t.isin).toLowerCase())),
  },
  {
    name: 'rest.address-bad-checksum',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'one contract_address is mixed-case with a wrong EIP-55 checksum',
    rest: oneToken((t) => (t.contract_address = badChecksum(String(t.contract_address)))),
  },
  {
    name: 'rest.address-no-0x',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'contract_address without the 0x prefix',
    rest: eachToken((t) => (t.contract_address = String(t.contract_address).slice(2).toLowerCase())),
  },
  {
    name: 'rest.symbol-number',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'symbol is a number (a ticker id)',
    rest: oneToken((t) => (t.symbol = 1337)),
  },
  {
    name: 'rest.decimals-string',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'decimals is the string "18"',
    rest: eachToken((t) => (t.decimals = String(t.decimals))),
  },
  {
    name: 'rest.decimals-300',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'decimals 300 (an ERC-20 uint8 cannot be above 255)',
    rest: oneToken((t) => (t.decimals = 300)),
  },
  {
    name: 'rest.decimals-fraction',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'decimals 18.5 (not an integer)',
    rest: oneToken((t) => (t.decimals = 18.5)),
  },
  {
    name: 'rest.total-supply-negative',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'a negative total_supply',
    rest: oneToken((t) => (t.total_supply = -Math.abs(Number(t.total_supply)) || -1)),
  },
  {
    name: 'rest.total-supply-string',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'total_supply as a decimal string ("1000")',
    rest: eachToken((t) => (t.total_supply = String(t.total_supply))),
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
    name: 'rest.multiplier-string',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'multiplier as a string',
    rest: eachToken((t) => (t.multiplier = String(t.multiplier))),
  },
  {
    name: 'rest.paused-features-negative',
    kind: 'faulty',
    section: '2.1',
    only: ['rest', 'cross'],
    gap: "2.1 types paused_features as int64 and leaves the values' meanings unshown (rule 3), so -1 breaks no stated format and only the advisory rest.token.paused-features.non-negative flags it. The record contradicts the chain (the contract pauses nothing), but no cross check compares paused_features with on-chain state, and the spec names no contract view to read it from",
    what: 'paused_features [-1] (a sign-extended "all paused" mask)',
    rest: oneToken((t) => (t.paused_features = [-1])),
  },
  {
    name: 'rest.paused-features-beyond-int64',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'a paused_features value of 2^64 (a uint256 bitmask leaked through, beyond int64)',
    rest: oneToken((t) => (t.paused_features = [18446744073709552000])),
  },
  {
    name: 'rest.paused-features-not-array',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'paused_features is a bitmask integer, not an array',
    rest: eachToken((t) => (t.paused_features = (t.paused_features as number[]).reduce((m, f) => m | (1 << f), 0))),
  },
  {
    name: 'rest.paused-features-strings',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'paused_features as feature names ["MINT"]',
    rest: eachToken((t) => (t.paused_features = ['MINT'])),
  },
  {
    name: 'rest.nav-price-null',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'nav_price null for one record',
    rest: oneToken((t) => (t.nav_price = null)),
  },
  {
    name: 'rest.nav-price-string',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'nav_price as a decimal string',
    rest: eachToken((t) => (t.nav_price = String(t.nav_price))),
  },
  {
    name: 'rest.nav-updated-at-not-rfc3339',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'nav_price_updated_at "2026-01-01 10:00" (no T, no seconds, no offset)',
    rest: oneToken((t) => (t.nav_price_updated_at = '2026-01-01 10:00')),
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
    name: 'rest.nav-updated-at-epoch',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: "nav_price_updated_at as epoch seconds (the feed's raw updatedAt)",
    rest: eachToken((t) => (t.nav_price_updated_at = Math.floor(Date.parse(String(t.nav_price_updated_at)) / 1000))),
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
    name: 'rest.icon-url-relative',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'icon_url is a relative path',
    rest: eachToken((t) => (t.icon_url = `/icons/${String(t.symbol)}.svg`)),
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
    name: 'rest.decimals-wrong',
    kind: 'faulty',
    section: '2.1',
    only: ['rest', 'cross'],
    what: 'decimals does not match the contract (18 <-> 6 swapped)',
    rest: eachToken((t) => (t.decimals = t.decimals === 18 ? 6 : 18)),
  },
  {
    name: 'rest.address-not-a-contract',
    kind: 'faulty',
    section: '2.1',
    only: ['rest', 'cross'],
    what: 'one contract_address points at an account without code',
    rest: oneToken((t) => (t.contract_address = '0x000000000000000000000000000000000000dEaD')),
  },

  {
    name: 'rest.symbol-swapped',
    kind: 'faulty',
    section: '2.1',
    only: ['rest', 'cross'],
    what: "the symbols of two records are swapped (each names another token's ticker)",
    rest: tokens((ts) => {
      const [a, b] = [ts[0].symbol, ts[1].symbol];
      ts[0].symbol = b;
      ts[1].symbol = a;
      return ts;
    }),
  },
  {
    name: 'rest.nav-updated-at-impossible-date',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'nav_price_updated_at on 30 February',
    rest: oneToken((t) => (t.nav_price_updated_at = '2026-02-30T10:00:00Z')),
  },
  {
    name: 'rest.icon-url-ftp',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'icon_url with an ftp: scheme',
    rest: oneToken((t) => (t.icon_url = `ftp://icons.example/${String(t.symbol)}.svg`)),
  },
  {
    name: 'rest.address-too-short',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'a contract_address of 19 bytes (last byte cut)',
    rest: oneToken((t) => (t.contract_address = String(t.contract_address).slice(0, -2))),
  },
  { name: 'rest.decimals-negative', kind: 'faulty', section: '2.1', only: ['rest'], what: 'decimals -1', rest: oneToken((t) => (t.decimals = -1)) },
  {
    name: 'rest.multiplier-zero',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'multiplier 0 (shares = total_supply * 0)',
    rest: oneToken((t) => (t.multiplier = 0)),
  },
  {
    name: 'rest.nav-price-negative',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'a negative nav_price',
    rest: oneToken((t) => (t.nav_price = -Math.abs(Number(t.nav_price)) || -1)),
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

  // ==== 2.3 / 7 the error body (rpcStatus) ====
  {
    name: 'rest.error-missing-code',
    kind: 'faulty',
    section: '2.3',
    only: ['rest'],
    what: 'the rpcStatus error body has no code',
    rest: errors((r, b) => Raw.json(r.status, { message: (b as Rec)?.message ?? 'error', details: [] })),
  },
  {
    name: 'rest.error-code-string',
    kind: 'faulty',
    section: '2.3',
    only: ['rest'],
    what: 'rpcStatus.code is the enum name "NOT_FOUND"',
    rest: errors((r, b) => Raw.json(r.status, { ...(b as Rec), code: 'NOT_FOUND' })),
  },
  {
    name: 'rest.error-details-without-type',
    kind: 'faulty',
    section: '2.3',
    only: ['rest'],
    what: 'an rpcStatus details item without @type',
    rest: errors((r, b) => Raw.json(r.status, { ...(b as Rec), details: [{ reason: 'NOT_FOUND', domain: 'api' }] })),
  },
  {
    name: 'rest.error-details-not-array',
    kind: 'faulty',
    section: '2.3',
    only: ['rest'],
    what: 'rpcStatus.details is a single object',
    rest: errors((r, b) => Raw.json(r.status, { ...(b as Rec), details: { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'X' } })),
  },
  {
    name: 'rest.error-spring-shape',
    kind: 'faulty',
    section: '2.3',
    only: ['rest'],
    what: 'errors in a framework default shape {timestamp, status, error, path}',
    rest: errors((r) => Raw.json(r.status, { timestamp: iso(Date.now()), status: r.status, error: 'Not Found', path: '/x' })),
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
  {
    name: 'rpc.id-not-echoed',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    what: 'the response id is not the request id',
    // One cause, one verdict: the id checks fail; every check that read a result is blocked by them, never failing 4.2.1 again.
    oneRoot: { failed: ['rpc.envelope.id-max-safe-integer', 'rpc.envelope.id-zero'], blockedBy: 'rpc.envelope.id-zero', blockedAtLeast: 30 },
    rpc: everyAnswer((e) => ({ ...e, id: typeof e.id === 'number' ? e.id + 1000 : 1 })),
  },
  {
    name: 'rpc.not-json-rpc-200-text',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    what: 'every call answered HTTP 200 with a plain-text page (not JSON, not JSON-RPC: a proxy or terminal banner)',
    // The envelope check fails once (with the advisory media-type check); the others are blocked by it.
    oneRoot: { failed: ['rpc.envelope.content-type', 'rpc.envelope.jsonrpc-version'], blockedBy: 'rpc.envelope.jsonrpc-version', blockedAtLeast: 45 },
    rpc: async () => Raw.text(200, 'text/plain', '\u001b[1mWelcome\u001b[0m: this is not the node you are looking for'),
  },
  {
    name: 'rpc.id-as-string',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    what: 'the numeric request id is echoed as a string',
    rpc: everyAnswer((e) => ({ ...e, id: String(e.id) })),
  },
  {
    name: 'rpc.jsonrpc-missing',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    what: 'responses carry no jsonrpc member',
    rpc: everyAnswer(({ jsonrpc: _, ...e }) => e),
  },
  {
    name: 'rpc.result-and-error',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    what: 'successful responses also carry error: null',
    rpc: everyAnswer((e) => ('result' in e ? { ...e, error: null } : e)),
  },
  {
    name: 'rpc.http-500',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    what: 'every answer comes with HTTP status 500',
    rpc: everyAnswer((e) => Raw.json(500, e)),
  },
  {
    name: 'ok.rpc-text-plain',
    kind: 'conformant',
    only: ['rpc'],
    mustPass: '^rpc\\.envelope\\.(http-200|jsonrpc-version|id-zero)$',
    what: 'JSON-RPC answers served as text/plain with JSON bodies (4.2 states Content-Type for requests only: advisory)',
    rpc: everyAnswer((e) => Raw.json(200, e, 'text/plain')),
  },
  { name: 'rpc.connection-reset', kind: 'faulty', section: '4.2', only: ['rpc'], what: 'the node resets every connection', rpc: async () => RESET },

  {
    name: 'rpc.truncated-json',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    what: 'answers are cut off after 20 bytes',
    rpc: everyAnswer((e) => Raw.text(200, 'application/json', JSON.stringify(e).slice(0, 20))),
  },
  {
    name: 'rpc.error-id-null',
    kind: 'faulty',
    section: '4.2',
    only: ['rpc'],
    what: 'error answers carry id null instead of the request id',
    rpc: everyAnswer((e) => ('error' in e ? { ...e, id: null } : e)),
  },

  // ==== 4.5 eth_getTransactionCount ====
  {
    name: 'rpc.nonce-decimal-number',
    kind: 'faulty',
    section: '4.5',
    only: ['rpc'],
    what: 'the count is a JSON number, not a hex string',
    rpc: onResult('eth_getTransactionCount', (r) => Number(hexInt(r))),
  },
  {
    name: 'rpc.nonce-leading-zeros',
    kind: 'faulty',
    section: '4.5',
    only: ['rpc'],
    what: 'the count has leading zeros ("0x00")',
    rpc: onResult('eth_getTransactionCount', (r) => '0x0' + String(r).slice(2)),
  },
  {
    name: 'rpc.nonce-decimal-string',
    kind: 'faulty',
    section: '4.5',
    only: ['rpc'],
    what: 'the count is a decimal string ("0")',
    rpc: onResult('eth_getTransactionCount', (r) => hexInt(r).toString(10)),
  },
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
    name: 'rpc.code-uppercase-hex',
    kind: 'faulty',
    section: '4.6',
    only: ['rpc'],
    what: 'bytecode in upper-case hex',
    rpc: onResult('eth_getCode', (r) => (isEmptyCode(r) ? r : '0x' + String(r).slice(2).toUpperCase())),
  },
  {
    name: 'rpc.code-null-for-eoa',
    kind: 'faulty',
    section: '4.6',
    only: ['rpc'],
    what: 'eth_getCode of an account without code is null',
    rpc: onResult('eth_getCode', (r) => (isEmptyCode(r) ? null : r)),
  },
  {
    name: 'rpc.code-0x0-for-eoa',
    kind: 'faulty',
    section: '4.6',
    only: ['rpc'],
    what: 'eth_getCode of an account without code is "0x0"',
    rpc: onResult('eth_getCode', (r) => (isEmptyCode(r) ? '0x0' : r)),
  },
  {
    name: 'rpc.code-odd-length',
    kind: 'faulty',
    section: '4.6',
    only: ['rpc'],
    what: 'contract bytecode loses its last nibble (odd-length hex)',
    rpc: onResult('eth_getCode', (r) => (isEmptyCode(r) ? r : String(r).slice(0, -1))),
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

  // ==== 4.4 / 7 eth_estimateGas ====
  {
    name: 'rpc.estimate-number',
    kind: 'faulty',
    section: '4.4',
    only: ['rpc'],
    what: 'the estimate is a JSON number',
    rpc: onResult('eth_estimateGas', (r) => Number(hexInt(r))),
  },
  {
    name: 'rpc.estimate-below-21000',
    kind: 'faulty',
    section: '4.4',
    only: ['rpc'],
    what: 'the estimate is below the 21000 intrinsic gas of any transaction',
    rpc: onResult('eth_estimateGas', () => '0x4e20'),
  },
  {
    name: 'rpc.revert-code-3',
    kind: 'faulty',
    section: '4.4',
    only: ['rpc'],
    what: 'a revert is error code 3 (geth style), not -32000',
    rpc: onError('eth_estimateGas', (err, e) => ({ ...e, error: { ...err, code: 3 } })),
  },
  {
    name: 'rpc.revert-code-3-at-pending',
    kind: 'faulty',
    section: '4.4',
    only: ['rpc'],
    grep: '^rpc\\.estimateGas\\.revert\\.',
    what: 'a revert is -32000 at "latest" but error code 3 at "pending" (the pre-confirmed state answered by another code path)',
    rpc: onAnswer(
      'eth_estimateGas',
      (e) => (typeof e.error === 'object' && e.error !== null ? { ...e, error: { ...(e.error as Rec), code: 3 } } : e),
      isPending,
    ),
  },
  {
    name: 'rpc.revert-code-32603',
    kind: 'faulty',
    section: '7',
    only: ['rpc'],
    what: 'a revert is an internal error -32603',
    rpc: onError('eth_estimateGas', (err, e) => ({ ...e, error: { ...err, code: -32603 } })),
  },
  {
    name: 'rpc.revert-message-reverted',
    kind: 'faulty',
    section: '4.4',
    only: ['rpc'],
    what: 'the revert message is "reverted", not "execution reverted"',
    rpc: onError('eth_estimateGas', (err, e) => ({ ...e, error: { ...err, message: 'reverted' } })),
  },
  {
    name: 'rpc.revert-data-not-reason',
    kind: 'faulty',
    section: '4.4',
    only: ['rpc'],
    what: 'error.data is a fixed text, not the revert reason',
    rpc: onError('eth_estimateGas', (err, e) => ({ ...e, error: { ...err, data: 'see server logs' } })),
  },
  {
    name: 'rpc.revert-as-result',
    kind: 'faulty',
    section: '4.4',
    only: ['rpc'],
    what: 'a reverting transaction gets a gas estimate instead of an error',
    rpc: onAnswer('eth_estimateGas', (e) => ('error' in e ? { jsonrpc: '2.0', id: e.id, result: '0x1c9c380' } : e)),
  },

  // ==== 4.3 / 2.4 eth_getBlockReceipts ====
  {
    name: 'rpc.receipts-missing-status',
    kind: 'faulty',
    section: '2.4',
    only: ['rpc'],
    what: 'receipts carry no status',
    rpc: onResult('eth_getBlockReceipts', (rs) => (rs as Rec[]).map(({ status: _, ...r }) => r)),
  },
  {
    name: 'rpc.receipts-gasused-number',
    kind: 'faulty',
    section: '2.4',
    only: ['rpc'],
    what: 'receipt gasUsed as a JSON number',
    rpc: onResult('eth_getBlockReceipts', (rs) => (rs as Rec[]).map((r) => ({ ...r, gasUsed: Number(hexInt(r.gasUsed)) }))),
  },
  {
    name: 'rpc.receipts-status-bool',
    kind: 'faulty',
    section: '2.4',
    only: ['rpc'],
    what: 'receipt status as a boolean',
    rpc: onResult('eth_getBlockReceipts', (rs) => (rs as Rec[]).map((r) => ({ ...r, status: r.status === '0x1' }))),
  },
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
    name: 'rpc.receipts-duplicated',
    kind: 'faulty',
    section: '4.3',
    only: ['rpc'],
    what: 'the first receipt of a block is listed twice',
    rpc: onResult('eth_getBlockReceipts', (rs) => ((rs as Rec[]).length ? [...(rs as Rec[]), (rs as Rec[])[0]] : rs)),
  },
  {
    name: 'rpc.receipts-pending-null',
    kind: 'faulty',
    section: '4.3',
    only: ['rpc'],
    what: 'eth_getBlockReceipts("pending") is null',
    rpc: answerCall('eth_getBlockReceipts', (c) => ({ jsonrpc: '2.0', id: c.id ?? null, result: null }), isPending),
  },
  // A public node judged with the default profile: one failure naming --profile public, the rest blocked by it.
  {
    name: 'rpc.receipts-dedicated-403',
    kind: 'faulty',
    section: '4.3',
    only: ['rpc'],
    what: 'a dedicated node refuses eth_getBlockReceipts with HTTP 403',
    rpc: answerCall('eth_getBlockReceipts', (c) => Raw.json(403, rpcError(c, -32001, 'forbidden'))),
    oneRoot: { failed: ['rpc.getBlockReceipts.block.latest'], blockedBy: 'rpc.getBlockReceipts.block.latest', blockedAtLeast: 7 },
  },
  // A method the node does not serve is one cause: one root per method, its other checks blocked by it.
  {
    name: 'rpc.receipts-method-unsupported',
    kind: 'faulty',
    section: '4.3',
    only: ['rpc', 'preconf'],
    grep: '^(?!preconf\\.latency\\.)',
    what: 'eth_getBlockReceipts answered -32004 "Method eth_getBlockReceipts is not supported" (Hardhat)',
    rpc: answerCall('eth_getBlockReceipts', (c) => rpcError(c, -32004, 'Method eth_getBlockReceipts is not supported')),
    oneRoot: { failed: ['rpc.getBlockReceipts.block.latest'], blockedBy: 'rpc.getBlockReceipts.block.latest', blockedAtLeast: 7 },
  },
  {
    name: 'rpc.estimate-gas-method-absent',
    kind: 'faulty',
    section: '4.4',
    only: ['rpc'],
    what: 'eth_estimateGas answered -32601 "the method eth_estimateGas does not exist/is not available"',
    rpc: answerCall('eth_estimateGas', (c) => rpcError(c, -32601, 'the method eth_estimateGas does not exist/is not available')),
    oneRoot: { failed: ['rpc.estimateGas.block.latest'], blockedBy: 'rpc.estimateGas.block.latest', blockedAtLeast: 3 },
  },
  {
    name: 'rpc.public-no-403',
    kind: 'faulty',
    section: '5.2',
    only: ['rpc'],
    what: 'a public node serves eth_getBlockReceipts (run with --profile public)',
    args: ['--profile', 'public'],
  },
  {
    name: 'rpc.public-403-for-everything',
    kind: 'faulty',
    section: '5.2',
    only: ['rpc'],
    what: 'a public node answers HTTP 403 to all four methods',
    args: ['--profile', 'public'],
    rpc: answerCall(Object.keys(BLOCK_PARAM), (c) => Raw.json(403, rpcError(c, -32001, 'forbidden'))),
  },

  // ==== 1.4 "pending" accepted by each method ====
  ...Object.keys(BLOCK_PARAM).map((m): Variant => ({
    name: `rpc.pending-rejected.${m}`,
    kind: 'faulty',
    section: '1.4',
    only: ['rpc'],
    what: `${m} refuses the "pending" tag with an error`,
    rpc: pendingRejected(m),
  })),

  // ==== pre-confirmed state ignored: "pending" answered from "latest" (needs a signer) ====
  {
    name: 'preconf.pending-as-latest.eth_getTransactionCount',
    kind: 'faulty',
    section: '4.5',
    only: ['preconf'],
    grep: '^preconf\\.nonce\\.',
    what: 'the pending count ignores pre-confirmed transactions',
    rpc: pendingAsLatest('eth_getTransactionCount'),
  },
  {
    name: 'preconf.pending-as-latest.eth_getCode',
    kind: 'faulty',
    section: '4.6',
    only: ['preconf'],
    grep: '^preconf\\.code\\.',
    what: 'pending code ignores pre-confirmed deployments',
    rpc: pendingAsLatest('eth_getCode'),
  },
  {
    name: 'preconf.pending-as-latest.eth_getBlockReceipts',
    kind: 'faulty',
    section: '4.3',
    only: ['preconf'],
    grep: '^preconf\\.receipts\\.',
    what: 'pending receipts are those of the latest sealed block',
    rpc: pendingAsLatest('eth_getBlockReceipts'),
  },
  {
    name: 'preconf.pending-as-latest.eth_estimateGas',
    kind: 'faulty',
    section: '4.4',
    only: ['preconf'],
    grep: '^preconf\\.estimate\\.',
    what: 'pending estimates ignore pre-confirmed state',
    rpc: pendingAsLatest('eth_estimateGas'),
  },
  {
    name: 'preconf.pending-receipts-empty',
    kind: 'faulty',
    section: '4.3',
    only: ['preconf'],
    grep: '^preconf\\.receipts\\.',
    what: 'pending receipts are always an empty list',
    rpc: answerCall('eth_getBlockReceipts', (c) => ({ jsonrpc: '2.0', id: c.id ?? null, result: [] }), isPending),
  },
  // Direct evidence from the node's own answers: the count it gives as the next nonce.
  {
    name: 'preconf.pending-count-below-latest',
    kind: 'faulty',
    section: '4.5',
    only: ['preconf'],
    grep: '^preconf\\.nonce\\.',
    what: 'the pending count is one below the latest count read just before it',
    rpc: onResult('eth_getTransactionCount', oneLess, isPending),
  },
  {
    name: 'preconf.pending-nonce-too-low',
    kind: 'faulty',
    section: '4.5',
    only: ['preconf'],
    grep: '^preconf\\.nonce\\.',
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
    what: 'a replica counting only its own pool: the pending count of another sender leaves out its pre-confirmed transactions (answered as "latest")',
    rpc: pendingAsLatest('eth_getTransactionCount'),
  },
  {
    name: 'ok.pending-count-400ms-late',
    kind: 'conformant',
    only: ['rpc'],
    grep: '^rpc\\.getTransactionCount\\.',
    mustPass: '^rpc\\.getTransactionCount\\.pending-ge-latest$',
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
    name: 'ok.rpc-gateway-down',
    kind: 'conformant',
    only: ['rpc'],
    incomplete: true,
    roots: 1,
    what: "every JSON-RPC call answered HTTP 502 with the gateway's HTML page (the backend is down): not the spec's, said once",
    mustBe: [['^rpc\\.(?!public\\.|getBlockReceipts\\.public-403)', 'inconclusive', 'gateway']],
    rpc: async () =>
      Raw.text(502, 'text/html', '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>'),
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
    name: 'ok.rest-gateway-down',
    kind: 'conformant',
    only: ['rest'],
    incomplete: true,
    roots: 1,
    grep: '^rest\\.list\\.',
    what: "every REST request answered HTTP 503 by the gateway (its backend down): not the spec's, said once",
    mustBe: [['^rest\\.list\\.', 'inconclusive', 'gateway']],
    rest: async () => Raw.text(503, 'text/html', '<html><body><h1>503 Service Unavailable</h1>No server is available to handle this request.</body></html>'),
  },
  {
    name: 'rpc.public-credentials-demanded',
    kind: 'faulty',
    section: '5.2',
    only: ['rpc'],
    args: ['--profile', 'public'],
    what: 'a public node address answers HTTP 401 to every call (5.2: accepted without credentials)',
    oneRoot: { failed: ['rpc.public.accepts.getTransactionCount'], blockedBy: 'rpc.public.accepts.getTransactionCount', blockedAtLeast: 30 },
    rpc: async () => new Raw(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }, '{"error":"API key required"}'),
  },
  {
    name: 'ok.rpc-throttled-for-good',
    kind: 'conformant',
    only: ['rpc'],
    incomplete: true,
    grep: '^rpc\\.(envelope\\.(http-200|jsonrpc-version)|getCode\\.block\\.latest|history\\.getCode\\.earliest)$',
    what: 'every JSON-RPC call answered HTTP 429 with Retry-After: 1 (a plan exhausted): nothing can be judged, one root cause with the --max-rps hint',
    roots: 1,
    mustBe: [['^rpc\\.', 'inconclusive', 'throttled']],
    rpc: async (c) => new Raw(429, { 'content-type': 'application/json', 'retry-after': '1' }, JSON.stringify(rpcError(c, 429, 'Too Many Requests'))),
  },
  {
    name: 'ok.lb-one-block-apart',
    kind: 'conformant',
    only: ['rpc'],
    mustPass:
      '^rpc\\.(getTransactionCount|getCode|estimateGas|getBlockReceipts)\\.block\\.(latest|head-number)$|^rpc\\.history\\.(getTransactionCount|getBlockReceipts)\\.',
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
    name: 'ok.reordered-list',
    kind: 'conformant',
    only: ['rest', 'cross'],
    mustPass: '^rest\\.list\\.schema$|^cross\\.token\\.has-code\\.latest$',
    what: 'records in reverse order',
    rest: tokens((ts) => [...ts].reverse()),
  },
  { name: 'ok.empty-list', kind: 'conformant', only: ['rest', 'cross'], what: 'no record exposed: {"tokens": []}', rest: tokens(() => []) },
  {
    name: 'ok.empty-list-omitted',
    kind: 'conformant',
    only: ['rest', 'cross'],
    mustPass: '^rest\\.list\\.(status-200|tokens-array|schema|no-credentials)$',
    what: 'no record exposed, as grpc-gateway marshals it: {} (an empty repeated field is left out of proto3 JSON)',
    rest: listBody(() => ({})),
  },
  {
    name: 'ok.partial-list',
    kind: 'conformant',
    only: ['rest', 'cross'],
    mustPass: '^rest\\.list\\.schema$|^cross\\.token\\.has-code\\.latest$',
    what: 'only two of the records exposed',
    rest: tokens((ts) => ts.slice(0, 2)),
  },
  {
    name: 'ok.unknown-extra-fields',
    kind: 'conformant',
    only: ['rest', 'cross'],
    mustPass: '^rest\\.list\\.(tokens-array|schema)$|^rest\\.token\\.field\\.',
    what: 'unknown extra fields in the list and in every record',
    rest: listBody((b) => ({
      ...b,
      next_page_token: '',
      total: (b.tokens as Rec[]).length,
      tokens: (b.tokens as Rec[]).map((t) => ({ ...t, chain_id: 4801, tags: ['equity'], issuer: { lei: '5493000IBP32UQZ0KL24' } })),
    })),
  },
  {
    name: 'ok.lowercase-addresses',
    kind: 'conformant',
    only: ['rest', 'cross'],
    mustPass: '^rest\\.token\\.(field\\.contract-address|contract-address\\.unique)$|^cross\\.token\\.has-code\\.',
    what: 'contract addresses all lower-case (no checksum)',
    rest: eachToken((t) => (t.contract_address = String(t.contract_address).toLowerCase())),
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
    name: 'ok.offset-plus-00-00',
    kind: 'conformant',
    only: ['rest', 'cross'],
    mustPass: '^rest\\.token\\.(field\\.nav-price-updated-at|nav-price-updated-at\\.not-future)$',
    what: 'timestamps with a "+00:00" offset instead of Z',
    rest: eachToken((t) => (t.nav_price_updated_at = String(t.nav_price_updated_at).replace(/Z$/, '+00:00'))),
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
    name: 'ok.proto3-omits-zero-values',
    kind: 'conformant',
    only: ['rest'],
    mustPass:
      '^rest\\.token\\.(field\\.(decimals|total-supply|nav-price|paused-features)|decimals\\.range|total-supply\\.non-negative|nav-price\\.non-negative)$|^rest\\.list\\.schema$',
    what: 'a newly listed token with 0 decimals, no supply, no NAV yet and nothing paused: the gateway omits all four zero values',
    rest: oneToken((t) => {
      delete t.decimals;
      delete t.total_supply;
      delete t.nav_price;
      delete t.paused_features;
    }),
  },
  {
    name: 'ok.error-without-details',
    kind: 'conformant',
    only: ['rest'],
    mustPass: '^rest\\.error\\.',
    what: 'rpcStatus error bodies omit the empty details list (proto3 JSON default)',
    rest: errors((r, b) => {
      const { details: _, ...rest } = (b ?? {}) as Rec;
      return Raw.json(r.status, rest);
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
    name: 'ok.public-node-403',
    kind: 'conformant',
    only: ['rpc'],
    mustPass: '^rpc\\.getBlockReceipts\\.public-403|^rpc\\.public\\.accepts\\.',
    what: 'a public node (--profile public) refusing eth_getBlockReceipts with HTTP 403',
    args: ['--profile', 'public'],
    rpc: answerCall('eth_getBlockReceipts', (c) => Raw.json(403, rpcError(c, -32001, 'eth_getBlockReceipts is not available on public endpoints'))),
  },
  {
    name: 'ok.error-details-errorinfo',
    kind: 'conformant',
    only: ['rest'],
    what: 'rpcStatus details carry a google.rpc.ErrorInfo with extra properties',
    rest: errors((r, b) =>
      Raw.json(r.status, {
        ...(b as Rec),
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'NOT_FOUND', domain: 'api.example', metadata: { path: '/v1' } }],
      }),
    ),
    mustPass: '^rest\\.error\\.',
  },
  {
    name: 'ok.receipts-reordered',
    kind: 'conformant',
    only: ['rpc'],
    what: 'block receipts in reverse order (4.3 states no order)',
    rpc: onResult('eth_getBlockReceipts', (rs) => [...(rs as Rec[])].reverse()),
    mustPass: '^rpc\\.getBlockReceipts\\.(block\\.(latest|head-number)|nonempty-block)$',
  },
  {
    name: 'ok.receipts-op-stack-fields',
    kind: 'conformant',
    only: ['rpc'],
    what: 'receipts carry the OP Stack L1 fee fields (other receipt fields are "not shown", 2.4)',
    rpc: onResult('eth_getBlockReceipts', (rs) =>
      (rs as Rec[]).map((r) => ({
        ...r,
        l1Fee: '0x2d7d1c3f3',
        l1GasPrice: '0x3b9aca00',
        l1GasUsed: '0x640',
        l1BaseFeeScalar: '0x8dd',
        l1BlobBaseFee: '0x1',
        l1BlobBaseFeeScalar: '0x101c12',
        depositNonce: null,
      })),
    ),
    mustPass: '^rpc\\.getBlockReceipts\\.(block\\.(latest|head-number)|nonempty-block)$',
  },
  // Not run with preconf: its observations need ~1.7 s between seals at 150 ms per round trip,
  // more than the 1 s block time of the test's reference (they would only be inconclusive).
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
    name: 'rest.nav-updated-at-unix-epoch',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: "a real nav_price updated at the Unix epoch (a zero timestamp read instead of the round's updatedAt)",
    rest: oneToken((t) => (t.nav_price_updated_at = '1970-01-01T00:00:00Z')),
  },
  {
    name: 'rest.nav-updated-at-before-chains',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'a real nav_price updated in 2001, before any EVM chain published a block',
    rest: oneToken((t) => (t.nav_price_updated_at = '2001-09-09T01:46:40Z')),
  },
  {
    name: 'rest.multiplier-scaled-twice',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'multiplier divided by 1e18 once too often (1.0 served as 1e-18)',
    rest: eachToken((t) => (t.multiplier = Number(t.multiplier) / 1e18)),
  },
  {
    name: 'rest.icon-url-javascript',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'icon_url is a javascript: URL',
    rest: oneToken((t) => (t.icon_url = 'javascript:alert(document.domain)')),
  },
  {
    name: 'rest.icon-url-markup',
    kind: 'faulty',
    section: '2.1',
    only: ['rest'],
    what: 'icon_url is an HTML <img> element, not a URL',
    rest: oneToken((t) => (t.icon_url = `<img src="${String(t.icon_url)}">`)),
  },
  {
    name: 'rest.decimals-string-one-failure',
    kind: 'faulty',
    section: '2.1',
    only: ['rest', 'cross'],
    what: 'decimals as the int64 string of protobuf JSON ("18"): the field check alone fails; the chain agrees with the value, the schema names the field check',
    rest: eachToken((t) => (t.decimals = String(t.decimals))),
    oneRoot: { failed: ['rest.token.field.decimals'], blockedBy: 'rest.token.field.decimals', blockedAtLeast: 1 },
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
    name: 'ok.icon-url-schemes',
    kind: 'conformant',
    only: ['rest'],
    mustPass: '^rest\\.token\\.(icon-url\\.(resource-url|not-plain-http)|field\\.icon-url)$',
    what: 'icon_url under ipfs://, ipns://, ar:// and data:image (token lists publish logos this way)',
    rest: eachToken((t, i) => {
      const icons = [
        'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/logo.png',
        'ipns://k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8/logo.svg',
        'ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U',
        'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      ];
      t.icon_url = icons[i % icons.length]!;
    }),
  },
  {
    name: 'ok.icon-url-plain-http',
    kind: 'conformant',
    only: ['rest'],
    mustPass: '^rest\\.token\\.icon-url\\.resource-url$',
    what: 'icon_url over plain http: a URL, so conformant (the preference for https is advisory only)',
    rest: eachToken((t) => (t.icon_url = String(t.icon_url).replace(/^https:/, 'http:'))),
  },
  {
    name: 'ok.no-nav-at-epoch',
    kind: 'conformant',
    only: ['rest'],
    mustPass: '^rest\\.token\\.nav-price-updated-at\\.(onchain-era|not-future)$|^rest\\.token\\.nav-price\\.non-negative$',
    what: 'a record with no NAV yet: nav_price left out (proto3 default 0) and nav_price_updated_at the zero Timestamp (epoch)',
    rest: oneToken((t) => {
      delete t.nav_price;
      t.nav_price_updated_at = '1970-01-01T00:00:00Z';
    }),
  },
  {
    name: 'ok.multiplier-reverse-split',
    kind: 'conformant',
    only: ['rest'],
    mustPass: '^rest\\.token\\.multiplier\\.',
    what: 'multiplier 0.001 after a 1:1000 reverse split (small, but adjusted once)',
    rest: oneToken((t) => (t.multiplier = 0.001)),
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
    rpc: async (call, next) => {
      const tx = call.params?.[0];
      if (call.method !== 'eth_estimateGas' || typeof tx !== 'object' || tx === null || Array.isArray(tx) || typeof tx.from !== 'string') return next();
      const balance = await next({ jsonrpc: '2.0', id: 0, method: 'eth_getBalance', params: [tx.from, 'latest'] });
      if (balance instanceof Raw || balance.result !== '0x0') return next();
      return rpcError(call, -32000, 'insufficient funds for gas * price + value');
    },
  },
];
