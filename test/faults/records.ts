// The fault catalogue's data: every variant whose change is a static rewrite of an answer is a
// record in ./records/<section>-<topic>.yaml (one file per spec section), validated by
// ./records.schema.json and turned here into a Variant whose rewrite the loopback proxy
// applies. Variants that behave in time (hangs, lagging backends, throttling, pending
// answered as latest) stay code in ./catalogue.ts.
//
// Moving a code variant to data: its `rest:`/`rpc:` rewrite becomes `when` (which answers) and
// `patch` (a JSON Patch on the answer, or a JSON-RPC error in its place; its status, headers and
// body); its expectations (oneRoot, roots, mustPass, mustBe, incomplete) go under `expect`.
// JSON-RPC records are judged on the replay tier (a reference held still, judge.ts), unless
// `live` says why their verdict needs the chain in motion.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import YAML from 'yaml';
import type { Group, Interface } from '../../src/harness/check';
import type { Cause, ScopeFlag } from '../../src/harness/verdict';
import { applyPatch, type PatchOp } from './patch';
import { Raw, type Envelope, type Json, type RestMutation, type RpcCall, type RpcMutation } from './proxy';
import type { Variant } from './catalogue';
import SCHEMA from './records.schema.json';

export const RECORDS_DIR = path.join(__dirname, 'records');

/** Where each of the four methods takes its block parameter. */
export const BLOCK_PARAM: Record<string, number> = { eth_getBlockReceipts: 0, eth_estimateGas: 1, eth_getTransactionCount: 1, eth_getCode: 1 };
/** And where a record's `when.block` finds it: the four, and the block read the checks find transactions by (never judged itself). */
const WHEN_BLOCK_PARAM: Record<string, number> = { ...BLOCK_PARAM, eth_getBlockByNumber: 0 };

type WhenRest = { interface: 'rest'; method?: string; path?: string; status?: number | 'error' };
type WhenRpc = { interface: 'rpc'; method?: string | string[]; block?: string; answer?: 'result' | 'error' };
/** A JSON-RPC error object, as `patch.error` answers it. */
type RpcErrorObject = { code: number; message: string; data?: Json };
type Rewrite = PatchOp[] | { ops?: PatchOp[]; error?: RpcErrorObject; status?: number; headers?: Record<string, string>; body?: Json };

export interface FaultRecord {
  id: string;
  kind: 'fault' | 'conformant' | 'incomplete';
  section?: string;
  what: string;
  only: Group[];
  grep?: string;
  args?: string[];
  gap?: string;
  /** Why the verdict needs the chain in motion: judged live, not on the replay tier. */
  live?: string;
  /** Which answers to rewrite, and how; neither: the reference as it is, judged with other flags. */
  when?: WhenRest | WhenRpc;
  patch?: Rewrite;
  expect: {
    exit: 0 | 1 | 3;
    roots?: number;
    failed?: string[];
    blockedBy?: string | { unreachable: Interface };
    blockedAtLeast?: number;
    mustPass?: string;
    mustBe?: Array<[ids: string, status: 'skipped' | 'inconclusive', cause: Cause, flag?: ScopeFlag]>;
  };
}

interface RecordFile {
  section: string;
  title: string;
  records: FaultRecord[];
}

// strictTuples off: a mustBe entry is a tuple whose fourth member (the flag) is optional.
const validate = new Ajv({ allErrors: true, strictTuples: false }).compile<RecordFile>(SCHEMA);

const bodyText = (body: Json) => (typeof body === 'string' ? body : JSON.stringify(body));
const pathname = (p: string) => new URL(p, 'http://x').pathname.replace(/\/+$/, '');

/** Both forms of a patch as one: JSON Patch ops on the answer (or, for JSON-RPC, an error in its place), then its status, headers or body. */
function normal(patch: Rewrite): Exclude<Rewrite, PatchOp[]> {
  return Array.isArray(patch) ? { ops: patch } : patch;
}

function restRewrite(when: WhenRest, patch: Rewrite): RestMutation {
  const { ops, status, headers, body } = normal(patch);
  return async (req, next) => {
    const res = await next();
    const ok = res.status >= 200 && res.status < 300;
    if (when.method !== undefined && req.method !== when.method) return res;
    if (when.path !== undefined && pathname(req.path) !== when.path) return res;
    if (when.status !== undefined && (when.status === 'error' ? ok : res.status !== when.status)) return res;
    let text = res.body;
    if (ops) {
      const json = res.json();
      const patched = json === undefined ? undefined : applyPatch(json as Json, ops);
      if (patched === undefined) return res;
      text = JSON.stringify(patched);
    }
    return new Raw(status ?? res.status, { ...res.headers, ...headers }, body === undefined ? text : bodyText(body));
  };
}

function rpcRewrite(when: WhenRpc, patch: Rewrite): RpcMutation {
  const { ops, error, status, headers, body } = normal(patch);
  const methods = when.method === undefined ? undefined : new Set([when.method].flat());
  const named = (call: RpcCall) =>
    (!methods || methods.has(call.method)) && (when.block === undefined || call.params?.[WHEN_BLOCK_PARAM[call.method]] === when.block);
  const applies = (call: RpcCall, env: Envelope) =>
    named(call) &&
    (when.answer === undefined || (when.answer === 'result' ? 'result' in env && env.result !== null : typeof env.error === 'object' && env.error !== null));
  const answer = (env: Envelope) =>
    status === undefined && headers === undefined && body === undefined
      ? env
      : new Raw(status ?? 200, { 'content-type': 'application/json', ...headers }, body === undefined ? JSON.stringify(env) : bodyText(body));
  // An error in place of the answer, to the call's id: what a node that refuses the call says.
  const refusal = (call: RpcCall): Envelope => ({ jsonrpc: '2.0', id: call.id ?? null, error: error! });
  return async (call, next) => {
    // A node that refuses every call of a method answers without looking at what it would have said.
    if (error && when.answer === undefined) return named(call) ? answer(refusal(call)) : next();
    const res = await next();
    if (res instanceof Raw || !applies(call, res)) return res;
    if (error) return answer(refusal(call));
    if (!ops) return answer(res);
    const patched = applyPatch(res, ops);
    return typeof patched !== 'object' || patched === null || Array.isArray(patched) ? res : answer(patched);
  };
}

/** A record as the Variant the fault test runs. */
export function variantOf(r: FaultRecord, file: string): Variant {
  const e = r.expect;
  return {
    name: r.id,
    kind: r.kind === 'fault' ? 'faulty' : 'conformant',
    what: r.what,
    section: r.section,
    only: r.only,
    grep: r.grep,
    args: r.args,
    gap: r.gap,
    live: r.live,
    incomplete: r.kind === 'incomplete' || undefined,
    roots: e.roots,
    mustPass: e.mustPass,
    mustBe: e.mustBe,
    oneRoot: e.failed && { failed: e.failed, blockedBy: e.blockedBy!, blockedAtLeast: e.blockedAtLeast! },
    ...(r.when?.interface === 'rest' && { rest: restRewrite(r.when, r.patch!) }),
    ...(r.when?.interface === 'rpc' && { rpc: rpcRewrite(r.when, r.patch!) }),
    record: file,
  };
}

/** Every record file's problems (schema, and a fault filed under another section), or its variants. */
export function loadRecordFile(file: string): { variants: Variant[]; problems: string[] } {
  const name = path.basename(file);
  const doc: unknown = YAML.parse(readFileSync(file, 'utf8'));
  if (!validate(doc)) return { variants: [], problems: (validate.errors ?? []).map((e) => `${name}: ${e.instancePath || '/'} ${e.message}`) };
  const problems: string[] = [];
  if (!name.startsWith(`${doc.section}-`)) problems.push(`${name}: a file of section ${doc.section} is named ${doc.section}-<topic>.yaml`);
  for (const r of doc.records)
    if (r.kind === 'fault' && r.section !== doc.section) problems.push(`${name}: ${r.id} cites ${r.section}, filed under ${doc.section}`);
  return { variants: doc.records.map((r) => variantOf(r, name)), problems };
}

/** The catalogue's data variants, in file order; throws on the first invalid file. */
export function loadRecords(dir = RECORDS_DIR): Variant[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return files.flatMap((f) => {
    const { variants, problems } = loadRecordFile(path.join(dir, f));
    if (problems.length) throw new Error(`fault records are invalid:\n${problems.join('\n')}`);
    return variants;
  });
}
