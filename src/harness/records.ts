/**
 * Plumbing shared by the REST checks: fetching the list (spec 4.1) and judging its records one
 * by one (spec 2.1). The rules themselves live in the check files; this file only gets the
 * records and renders failures so that they name the record (index and contract_address) and
 * the bad value.
 */
import { fail, skip } from './verdict';
import type { CheckContext } from './check';
import { expectJsonResponse } from './expect';
import { show, isRecord } from './json';
import type { RestResponse } from './rest';
import { validate } from './schemas';

/** {base_url}/v1/tokenized-stocks (spec 4.1). */
export const LIST_PATH = '/v1/tokenized-stocks';

/** GET the list; `anonymous` sends none of the run's configured headers (spec 5.1). */
export function getList(ctx: Pick<CheckContext, 'rest'>, anonymous = false): Promise<RestResponse> {
  return ctx.rest.request('GET', LIST_PATH, { omitConfiguredHeaders: anonymous });
}

/** A schema error about one record (`/tokens/3/isin ...`), as opposed to the envelope. */
const RECORD_ERROR = /^\/tokens\/\d+(\/|\s)/;

/**
 * The schema errors of a list body that are about the envelope (2.2: an object whose `tokens`
 * is an array), leaving out those about individual records, which the per-record checks judge.
 */
export function envelopeErrors(body: unknown): string[] {
  return validate('list', body).errors.filter((e) => !RECORD_ERROR.test(e));
}

/**
 * GET {base_url}/v1/tokenized-stocks and return its `tokens`, failing when the answer is not a
 * 200 application/json (4.1) or the body is not a list envelope (2.2). Records are returned
 * unjudged, in the order served (no order is assumed by the checks).
 */
export async function fetchList(ctx: Pick<CheckContext, 'rest'>, opts: { anonymous?: boolean } = {}): Promise<unknown[]> {
  const res = await getList(ctx, opts.anonymous);
  return listOf(res, `GET ${LIST_PATH}${opts.anonymous ? ' (without configured headers)' : ''}`);
}

/** The `tokens` of an answer to GET {base_url}/v1/tokenized-stocks, judged as fetchList does. */
export function listOf(res: RestResponse, what: string): unknown[] {
  expectJsonResponse(res, 200, what, '4.1');
  if (res.json === undefined) {
    fail(`${what}: the 200 body is not JSON (${res.jsonError ?? 'unparseable'})`, { section: '4.1', expected: 'a JSON body', actual: res.text.slice(0, 200) });
  }
  const errors = envelopeErrors(res.json);
  const tokens = isRecord(res.json) ? res.json.tokens : undefined;
  if (errors.length > 0 || !Array.isArray(tokens)) {
    fail(`${what}: the 200 body is not a v1ListTokenizedEquityTokensResponse (an object whose "tokens" is an array): ${errors.slice(0, 3).join('; ') || 'tokens is not an array'}`, {
      section: '2.2',
      expected: 'an object with a "tokens" array',
      actual: isRecord(res.json) ? { tokens: res.json.tokens } : res.json,
    });
  }
  return tokens;
}

/** How a record is named in messages: its index, and its contract_address when it has one. */
export function recordLabel(record: unknown, index: number): string {
  const address = isRecord(record) ? record.contract_address : undefined;
  return typeof address === 'string' ? `tokens[${index}] (${address.length > 60 ? `${address.slice(0, 60)}…` : address})` : `tokens[${index}]`;
}

/** A record's verdict under one rule. */
export type Judgement =
  /** Conformant under this rule. */
  | { ok: true }
  /** A violation: what is wrong, and the offending value. */
  | { bad: string; value: unknown }
  /** The rule cannot be applied to this record (e.g. the field has the wrong type: another check's rule). */
  | { cannotJudge: string };

export const OK: Judgement = { ok: true };
export const bad = (why: string, value: unknown): Judgement => ({ bad: why, value });
export const cannotJudge = (why: string): Judgement => ({ cannotJudge: why });

export const EMPTY_LIST = 'the list is empty: no record to judge';

export interface RecordRule {
  /** What a conformant record has, for the failure's `expected` ("isin is a valid ISIN"). */
  expected: string;
  /** The section a violation breaks, when it differs from the check's own. */
  section?: string;
}

/**
 * Fetch the list and apply `judge` to every record. Fails naming every offending record (index,
 * address, value); skips when the list is empty or no record could be judged (never a pass
 * without an observation). Records the rule cannot apply to are noted, not failed: the check
 * for that field's type fails them.
 */
export async function judgeRecords(ctx: CheckContext, rule: RecordRule, judge: (record: unknown, index: number) => Judgement): Promise<void> {
  const tokens = await fetchList(ctx);
  if (tokens.length === 0) skip(EMPTY_LIST);
  const problems: { record: string; problem: string; value: unknown }[] = [];
  const unjudged: string[] = [];
  tokens.forEach((record, index) => {
    const j = judge(record, index);
    if ('bad' in j) problems.push({ record: recordLabel(record, index), problem: j.bad, value: j.value });
    else if ('cannotJudge' in j) unjudged.push(`${recordLabel(record, index)}: ${j.cannotJudge}`);
  });
  if (problems.length > 0) {
    const shown = problems.slice(0, 10).map((p) => `${p.record}: ${p.problem} (got ${show(p.value, 120)})`);
    const more = problems.length > shown.length ? `; and ${problems.length - shown.length} more` : '';
    fail(`${problems.length} of ${tokens.length} records break the rule "${rule.expected}": ${shown.join('; ')}${more}`, {
      ...(rule.section ? { section: rule.section } : {}),
      expected: rule.expected,
      actual: problems.slice(0, 50),
    });
  }
  if (unjudged.length === tokens.length) skip(`no record could be judged under this rule: ${unjudged.slice(0, 3).join('; ')}`);
  if (unjudged.length > 0) ctx.note(`${unjudged.length} of ${tokens.length} records not judged under this rule (their field type is judged elsewhere): ${unjudged.slice(0, 5).join('; ')}`);
  ctx.note(`${tokens.length - unjudged.length} record(s) judged`);
}

/** The value of `field` in a record, or a cannot-judge verdict when the record/field is absent. */
export function fieldOf(record: unknown, field: string): { value: unknown } | { missing: Judgement } {
  if (!isRecord(record)) return { missing: cannotJudge('the record is not an object') };
  if (!(field in record)) return { missing: cannotJudge(`no ${field} field`) };
  return { value: record[field] };
}

/** A finite JSON number, or a cannot-judge verdict (wrong type: the field check's rule). */
export function numberField(record: unknown, field: string): { n: number } | { verdict: Judgement } {
  const f = fieldOf(record, field);
  if ('missing' in f) return { verdict: f.missing };
  if (typeof f.value !== 'number') return { verdict: cannotJudge(`${field} is not a number (${show(f.value, 60)})`) };
  return { n: f.value };
}
