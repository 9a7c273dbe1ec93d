/**
 * Plumbing shared by the REST checks: fetching the list (spec 4.1) and judging its records one
 * by one (spec 2.1). The rules themselves live in the check files; this file only gets the
 * records and renders failures so that they name the record (index and contract_address) and
 * the bad value.
 *
 * Two readings are written here once for every check:
 * - A list that cannot be had (no answer, not HTTP 200, not JSON, not an object with a `tokens`
 *   array) blocks the checks that need it: they throw Blocked naming the root check whose rule
 *   the answer breaks, so one root cause is one failure (decided in src/verdict/root-causes.ts).
 * - The list is protobuf JSON served by a grpc-gateway, whose encoder omits a field that holds
 *   its proto3 default. An absent field is read as that default (PROTO3_DEFAULTS) and judged by
 *   the same rules as if it had been sent; a JSON null is not a default (it stays a type error).
 *   That holds for the envelope too: an empty repeated field is left out, so an API exposing no
 *   record answers `{}`, read as `{"tokens": []}` (withDefaultTokens).
 */
import { blocked, fail, skip } from './verdict';
import type { CheckContext } from './check';
import { TransportError } from './http';
import { cut, show, isRecord, keepSample, listSample } from './json';
import type { RestResponse } from './rest';
import { validate } from './schemas';
import { blockedIfMisnamed, FIELD_NAMES_ROOT, misnamedAs } from './field-names';
import { observed } from './observation';

/** {base_url}/v1/tokenized-stocks (spec 4.1). */
export const LIST_PATH = '/v1/tokenized-stocks';

type ListContext = Pick<CheckContext<'rest'>, 'rest' | 'shared'>;

/**
 * GET the list; `anonymous` sends none of the run's configured headers (spec 5.1). The plain GET
 * is made once per run and judged by every check that reads the list (each shows the exchange):
 * a list of tens of thousands of records is fetched and parsed once, not once per rule.
 */
export function getList(ctx: ListContext, anonymous = false): Promise<RestResponse> {
  if (anonymous) return ctx.rest.request('GET', LIST_PATH, { omitConfiguredHeaders: true });
  return ctx.shared(LIST_KEY, [LIST_KEY], (scope) => scope.rest(LIST_KEY).request('GET', LIST_PATH));
}

/** The key and lane of the run's one shared GET of the list (the probe's answer, when the run opened with one). */
export const LIST_KEY = 'rest.list';

/**
 * The schema errors of a list body that are about the envelope (2.2: an object whose `tokens`
 * is an array), leaving out those about individual records, which the per-record checks judge.
 */
export function envelopeErrors(body: unknown): string[] {
  // Validated with its records left out: the envelope's rules cost the same for any list length.
  const read = withDefaultTokens(body);
  const envelope = isRecord(read) && Array.isArray(read.tokens) ? { ...read, tokens: [] } : read;
  return validate('list', envelope).errors;
}

/**
 * The root checks of the list, each judging one prerequisite of every check that reads records:
 * an HTTP 200 answer (4.1), then a JSON body that is an object with a `tokens` array (4.1, 2.2).
 * The media type is judged by rest.list.content-type alone: a JSON body served under another
 * Content-Type still shows its records, so the record checks judge them.
 */
export const LIST_ROOT = { status: 'rest.list.status-200', envelope: 'rest.list.tokens-array' } as const;

/** GET the list, or Blocked by rest.list.status-200 when no HTTP answer came (4.1). */
export async function getListOrBlocked(ctx: ListContext, anonymous = false): Promise<RestResponse> {
  try {
    return await getList(ctx, anonymous);
  } catch (err) {
    if (err instanceof TransportError)
      blocked(LIST_ROOT.status, `GET ${LIST_PATH}: no answer: ${err.message}`, { violated: ['4.1.1'], expected: 'an HTTP 200 answer', actual: err.message });
    throw err;
  }
}

/** Blocked by rest.list.status-200 unless the answer is HTTP 200 (4.1). */
export function expectListStatus(res: RestResponse, what: string): void {
  if (res.status !== 200)
    blocked(LIST_ROOT.status, `${what}: expected HTTP 200, got ${res.status}`, {
      violated: ['4.1.1'],
      expected: observed.httpStatus(200),
      actual: observed.httpStatus(res.status),
    });
}

/**
 * GET {base_url}/v1/tokenized-stocks and return its `tokens`; Blocked when the answer is not an
 * HTTP 200 (4.1) or the body is not JSON (4.1) or not a list envelope (2.2). Records are returned
 * unjudged, in the order served (no order is assumed by the checks).
 */
export async function fetchList(ctx: ListContext & Pick<CheckContext, 'note'>, opts: { anonymous?: boolean } = {}): Promise<unknown[]> {
  const res = await getListOrBlocked(ctx, opts.anonymous);
  const tokens = listOf(res, `GET ${LIST_PATH}${opts.anonymous ? ' (without configured headers)' : ''}`);
  noteSample(ctx, tokens);
  return tokens;
}

/** How many records the list served: its length, or, when only a sample was read (listSample), the list's. */
export function listLength(tokens: readonly unknown[]): number {
  return listSample(tokens)?.length ?? tokens.length;
}

/** Where the k-th record read stands in the list served (they differ when a sample was read). */
export function servedIndex(tokens: readonly unknown[], k: number): number {
  return listSample(tokens)?.indices[k] ?? k;
}

/** Says so in the check's notes when the records judged are a sample of a list too long to read whole. */
export function noteSample(ctx: Pick<CheckContext, 'note'>, tokens: readonly unknown[]): void {
  const sample = listSample(tokens);
  if (sample)
    ctx.note(
      `the list has ${sample.length} records, more than this suite reads: a sample of ${tokens.length}, spread evenly over the list (first and last included), was judged; the others were not read`,
    );
}

/** The `tokens` of an answer to GET {base_url}/v1/tokenized-stocks, judged as fetchList does. */
export function listOf(res: RestResponse, what: string): unknown[] {
  expectListStatus(res, what);
  return tokensOf(res, what);
}

/**
 * Whether another member of a body without `tokens` holds a non-empty array of objects: records
 * under another name (`{"data": [{…}]}`), which is evidence against reading the body as an
 * empty list. An empty list's proto3 JSON has nothing of the kind; an unknown scalar or an empty
 * array beside it is tolerated as any unknown field is.
 */
function holdsRecordsElsewhere(body: Record<string, unknown>): boolean {
  return Object.values(body).some((v) => Array.isArray(v) && v.length > 0 && v.some(isRecord));
}

/** Whether the body left out `tokens` as an empty list's proto3 JSON does (and holds no records under another name). */
export function omitsTokens(body: unknown): boolean {
  return isRecord(body) && !Object.hasOwn(body, 'tokens') && !holdsRecordsElsewhere(body);
}

/**
 * A list body as the gateway meant it: an object without a `tokens` member is the proto3 JSON of
 * an empty list (grpc-gateway's marshaler omits an empty repeated field), so `{}` reads as
 * `{"tokens": []}`. Anything else is returned as it is: `"tokens": null` stays a type error, and
 * records under another member stay a missing `tokens` (2.2).
 */
export function withDefaultTokens(body: unknown): unknown {
  return omitsTokens(body) ? { ...(body as Record<string, unknown>), tokens: [] } : body;
}

/** The `tokens` of a 200 answer; Blocked by rest.list.tokens-array when there are none (4.1, 2.2). */
export function tokensOf(res: RestResponse, what: string): unknown[] {
  if (res.json === undefined) {
    blocked(LIST_ROOT.envelope, `${what}: the 200 body is not JSON (${res.jsonError ?? 'unparseable'})`, {
      violated: ['4.1.1'],
      expected: 'a JSON body',
      actual: cut(res.text, 200),
    });
  }
  const errors = envelopeErrors(res.json);
  const body = withDefaultTokens(res.json);
  const tokens = isRecord(body) ? body.tokens : undefined;
  if (errors.length > 0 || !Array.isArray(tokens)) {
    blocked(
      LIST_ROOT.envelope,
      `${what}: the 200 body is not a v1ListTokenizedEquityTokensResponse (an object whose "tokens" is an array): ${errors.slice(0, 3).join('; ') || 'tokens is not an array'}`,
      {
        violated: ['2.2.1'],
        expected: 'an object with a "tokens" array',
        actual: isRecord(res.json) ? { tokens: res.json.tokens } : res.json,
      },
    );
  }
  return tokens;
}

/**
 * At most this many records are asked about one by one on the chain (each costs a JSON-RPC
 * round trip): a longer list is judged on a sample, and the check's note says so.
 */
export const MAX_CHAIN_READS = 1_000;

/**
 * `items` when there are at most `max`, else `max` of them spread evenly over the whole list
 * (first and last included), noted with the sample size: bounded work whatever the list length.
 */
export function sampled<T>(ctx: Pick<CheckContext, 'note'>, items: readonly T[], what: string, max = MAX_CHAIN_READS): T[] {
  if (items.length <= max) return [...items];
  const step = (items.length - 1) / (max - 1);
  ctx.note(
    `a sample of ${max} of the ${items.length} ${what}, spread evenly over the list (first and last included), was judged; the others were not asked about`,
  );
  return Array.from({ length: max }, (_, k) => items[Math.round(k * step)]!);
}

/** How a record is named in messages: its index, and its contract_address when it has one. */
export function recordLabel(record: unknown, index: number, tokens?: readonly unknown[]): string {
  if (tokens) index = servedIndex(tokens, index);
  const address = isRecord(record) ? record.contract_address : undefined;
  return typeof address === 'string' && address !== '' ? `tokens[${index}] (${cut(address, 60)})` : `tokens[${index}]`;
}

/**
 * The proto3 default of each field of 2.1, the value a grpc-gateway leaves out of its JSON.
 * The 2.1 table has no "required" column (2.5 has one), so an absent field is this value and is
 * judged by the same rules: `paused_features` [] passes, `isin` or `contract_address` "" is not
 * an ISIN or an address, `multiplier` 0 is not positive. `nav_price_updated_at` has no entry:
 * "string (date-time)" is how a google.protobuf.Timestamp is rendered, a message whose absence
 * is no value at all, so an absent time is no time (and fails its field check).
 */
export const PROTO3_DEFAULTS: Readonly<Record<string, unknown>> = Object.freeze({
  contract_address: '',
  symbol: '',
  name: '',
  decimals: 0,
  icon_url: '',
  total_supply: 0,
  isin: '',
  multiplier: 0,
  paused_features: Object.freeze([]),
  nav_price: 0,
});

/** Whether the record leaves out a field that has a proto3 default (so it is read as that default). */
export function isDefaulted(record: unknown, field: string): boolean {
  return isRecord(record) && !Object.hasOwn(record, field) && Object.hasOwn(PROTO3_DEFAULTS, field) && misnamedAs(record, field) === undefined;
}

const DEFAULTED_FIELDS = Object.keys(PROTO3_DEFAULTS);

/** A record with every absent field that has a proto3 default filled in (the record itself is unchanged; returned as it is when it has them all). */
export function withDefaults(record: unknown): unknown {
  if (!isRecord(record) || DEFAULTED_FIELDS.every((field) => Object.hasOwn(record, field))) return record;
  const filled: Record<string, unknown> = { ...record };
  for (const [field, value] of Object.entries(PROTO3_DEFAULTS)) if (!Object.hasOwn(record, field)) filled[field] = structuredClone(value);
  return filled;
}

/** A list body whose records have their proto3 defaults filled in, for whole-body schema validation. */
export function listWithDefaults(answer: unknown): unknown {
  const body = withDefaultTokens(answer);
  return isRecord(body) && Array.isArray(body.tokens) ? { ...body, tokens: keepSample(body.tokens, body.tokens.map(withDefaults)) } : body;
}

/** A record's verdict under one rule. */
export type Judgement =
  /** Conformant under this rule. */
  | { ok: true }
  /** A violation: what is wrong, the offending value, and what the user can do about it (the failure's hint). */
  | { bad: string; value: unknown; hint?: string }
  /** The rule cannot be applied to this record (e.g. the field has the wrong type: another check's rule; `misnamed`: the field is under protojson's name). */
  | { cannotJudge: string; misnamed?: string };

export const OK: Judgement = { ok: true };
export const bad = (why: string, value: unknown, hint?: string): Judgement => ({ bad: why, value, ...(hint ? { hint } : {}) });
export const cannotJudge = (why: string): Judgement => ({ cannotJudge: why });
/** The record has `field` under protojson's name (field-names.ts): not judged here, FIELD_NAMES_ROOT states it. */
const misnamed = (field: string, name: string): Judgement => ({ cannotJudge: `it has ${name}, not ${field} (judged by ${FIELD_NAMES_ROOT})`, misnamed: field });

export const EMPTY_LIST = 'token records not judged: the list is empty';

export interface RecordRule {
  /** What a conformant record has, for the failure's `expected` ("isin is a valid ISIN"). */
  expected: string;
  /** The statements a violation breaks, when the check declares more than these. */
  violated?: readonly string[];
  /** The field the rule reads: records that omit it are noted, and their failures say the value was the proto3 default. */
  field?: string;
}

/**
 * Fetch the list and apply `judge` to every record. Fails naming every offending record (index,
 * address, value); skips when the list is empty or no record could be judged (never a pass
 * without an observation). Records the rule cannot apply to are noted, not failed: the check
 * for that field's type fails them.
 */
export async function judgeRecords(ctx: CheckContext<'rest'>, rule: RecordRule, judge: (record: unknown, index: number) => Judgement): Promise<void> {
  const tokens = await fetchList(ctx);
  if (tokens.length === 0) skip(EMPTY_LIST);
  // Counted in full, kept up to a bound: a list of any length is reported in a few lines.
  const problems: { record: string; problem: string; value: unknown }[] = [];
  const unjudged: string[] = [];
  const defaulted: string[] = [];
  const hints = new Set<string>();
  const misnamedSeen = new Set<string>();
  let badCount = 0;
  let unjudgedCount = 0;
  let defaultedCount = 0;
  const readAsDefault = rule.field === undefined ? '' : `${rule.field} is absent, read as its proto3 default ${show(PROTO3_DEFAULTS[rule.field])}: `;
  // A plain loop, no closure made per record: it runs once per record of lists of any length.
  for (let k = 0; k < tokens.length; k++) {
    const record = tokens[k];
    const index = servedIndex(tokens, k);
    const absent = rule.field !== undefined && isDefaulted(record, rule.field);
    if (absent && defaultedCount++ < KEPT_LABELS) defaulted.push(recordLabel(record, index));
    const j = judge(record, index);
    if ('bad' in j) {
      if (badCount++ < KEPT_PROBLEMS) problems.push({ record: recordLabel(record, index), problem: `${absent ? readAsDefault : ''}${j.bad}`, value: j.value });
      if (j.hint) hints.add(j.hint);
    } else if ('cannotJudge' in j) {
      if (j.misnamed) misnamedSeen.add(j.misnamed);
      if (unjudgedCount++ < KEPT_LABELS) unjudged.push(`${recordLabel(record, index)}: ${j.cannotJudge}`);
    }
  }
  const of = `${tokens.length}${listSample(tokens) ? ' judged' : ''}`;
  if (defaultedCount > 0) {
    ctx.note(
      `${defaultedCount} of ${of} records omit ${rule.field} (protobuf JSON leaves out default values): read as its proto3 default ${show(PROTO3_DEFAULTS[rule.field!])}: ${defaulted.join(', ')}${defaultedCount > defaulted.length ? ', …' : ''}`,
    );
  }
  if (badCount > 0) {
    const shown = problems.slice(0, 10).map((p) => `${p.record}: ${p.problem} (got ${show(p.value, 120)})`);
    const more = badCount > shown.length ? `; and ${badCount - shown.length} more` : '';
    fail(`${badCount} of ${of} records break the rule "${rule.expected}": ${shown.join('; ')}${more}`, {
      ...(rule.violated ? { violated: rule.violated } : {}),
      expected: rule.expected,
      actual: problems,
      ...(hints.size > 0 ? { hint: [...hints].join(' ') } : {}),
    });
  }
  // Records that name the field protojson's way were not judged under this rule: one fault, stated by FIELD_NAMES_ROOT.
  blockedIfMisnamed(tokens, [...misnamedSeen]);
  if (unjudgedCount === tokens.length) skip(`no record could be judged under this rule: ${unjudged.slice(0, 3).join('; ')}`);
  if (unjudgedCount > 0)
    ctx.note(`${unjudgedCount} of ${of} records not judged under this rule (their field type is judged elsewhere): ${unjudged.join('; ')}`);
  ctx.note(`${tokens.length - unjudgedCount} record(s) judged`);
}

/** The most offending records a failure keeps (the rest are counted), and the most records named in a note. */
const KEPT_PROBLEMS = 50;
const KEPT_LABELS = 5;

/**
 * The value of `field` in a record: as sent, or its proto3 default when the record leaves it out
 * (PROTO3_DEFAULTS). A cannot-judge verdict when the record is not an object, or the field is
 * absent and has no default (nav_price_updated_at: its field check fails that).
 */
export function fieldOf(record: unknown, field: string): { value: unknown } | { missing: Judgement } {
  if (!isRecord(record)) return { missing: cannotJudge('the record is not an object') };
  if (Object.hasOwn(record, field)) return { value: record[field] };
  const name = misnamedAs(record, field);
  if (name) return { missing: misnamed(field, name) };
  if (Object.hasOwn(PROTO3_DEFAULTS, field)) return { value: structuredClone(PROTO3_DEFAULTS[field]) };
  return { missing: cannotJudge(`no ${field} field (and it has no proto3 default)`) };
}

/** A finite JSON number, or a cannot-judge verdict (wrong type: the field check's rule). */
export function numberField(record: unknown, field: string): { n: number } | { verdict: Judgement } {
  const f = fieldOf(record, field);
  if ('missing' in f) return { verdict: f.missing };
  if (typeof f.value !== 'number') return { verdict: cannotJudge(`${field} is not a number (${show(f.value, 60)})`) };
  return { n: f.value };
}
