/**
 * REST x chain: 2.1 describes each record's symbol, decimals and total_supply as properties of
 * "the ERC-20 token contract" at contract_address, so they must agree with its standard views,
 * read with eth_call at "latest". A token that does not answer a view (eth_call is not one of the
 * spec's four methods; a node may refuse it) is "not judged", never a failure.
 */
import type { Hex } from 'viem';
import { viem } from '../../src/harness/viem';
import { check, type Check, type CheckContext } from '../../src/harness/check';
import { skip } from '../../src/harness/verdict';
import { show } from '../../src/harness/json';
import { isEvmAddress } from '../../src/harness/formats';
import { EMPTY_LIST, fetchList, fieldOf, recordLabel, sampled } from '../../src/harness/records';
import { blockedIfMisnamed } from '../../src/harness/field-names';
import type { RpcClient } from '../../src/harness/rpc';

type View = 'symbol' | 'decimals' | 'totalSupply';

/** The lane the ERC-20 view reads are kept under: each check comparing a view shows the read it judged. */
const VIEWS_LANE = 'erc20-views';

/**
 * One ERC-20 view of a token, or undefined when the node or token does not answer it: read once
 * per run (per sample under --samples) and judged by every check that compares it, as the REST
 * list is (the two total-supply checks and the decimals check read decimals() alike).
 */
function readView(ctx: CheckContext<'rest' | 'rpc'>, address: string, view: View): Promise<string | number | bigint | undefined> {
  return ctx.shared(`cross.erc20.${address}.${view}`, [VIEWS_LANE], (scope) => askView(scope.rpc(VIEWS_LANE), address, view));
}

async function askView(rpc: RpcClient, address: string, view: View): Promise<string | number | bigint | undefined> {
  const answer = await rpc.call('eth_call', [{ to: address, data: viem().encodeFunctionData({ abi: viem().erc20Abi, functionName: view }) }, 'latest']);
  if (typeof answer.result !== 'string' || answer.result === '0x') return undefined;
  try {
    return viem().decodeFunctionResult({ abi: viem().erc20Abi, functionName: view, data: answer.result as Hex }) as string | number | bigint;
  } catch {
    return undefined;
  }
}

/**
 * Whether a REST value agrees with the chain's, or undefined when the value cannot be compared
 * (null, an object, text that is no number): its type is its field check's rule, not this one's.
 * A string is a disagreement with what it shows (appended to the failure). `record` is the
 * record the value was read from, for a rule that reads another of its fields.
 */
type Agrees = (rest: unknown, chain: unknown, record: unknown) => boolean | string | undefined;

/**
 * The number a REST value stands for: a JSON number, or a string holding one, which is how the
 * proto3 JSON mapping writes int64 ("18"). Its field check fails the string; this check compares
 * the value, so that one wrong type is one failure and "18" agrees with the chain's 18.
 */
export function numericValue(rest: unknown): number | undefined {
  if (typeof rest === 'number') return rest;
  if (typeof rest !== 'string' || !/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(rest)) return undefined;
  return Number(rest);
}

/**
 * Compare one REST field with the chain for every record. Each mismatch is recorded in the run's
 * evidence as it is seen (ctx.violation), so an answer that ends the check afterwards (credentials
 * refused, a gateway down, throttling, the deadline) cannot take it back.
 */
async function compareAll(
  ctx: CheckContext<'rest' | 'rpc'>,
  field: string,
  view: string,
  read: (address: string) => Promise<unknown | undefined>,
  agrees: Agrees,
): Promise<void> {
  const tokens = await fetchList(ctx);
  if (tokens.length === 0) skip(EMPTY_LIST);
  const uncompared: string[] = [];
  let judged = 0;
  for (const [i, record] of sampled(ctx, [...tokens.entries()], 'records')) {
    if (ctx.signal.aborted) skip('stopped before every record was compared');
    const address = fieldOf(record, 'contract_address');
    const value = fieldOf(record, field);
    if (!('value' in address) || !isEvmAddress(address.value) || !('value' in value)) continue; // judged by the REST checks
    const chain = await read((address.value as string).toLowerCase());
    if (chain === undefined) continue;
    const verdict = agrees(value.value, chain, record);
    if (verdict === undefined) {
      uncompared.push(`${recordLabel(record, i)}: ${show(value.value, 40)}`);
      continue;
    }
    judged++;
    if (verdict !== true) {
      const label = recordLabel(record, i, tokens);
      const why = typeof verdict === 'string' ? `: ${verdict}` : '';
      ctx.violation(`${label} disagrees with the token contract's ${view}: REST ${show(value.value, 40)}, chain ${show(chain, 40)}${why}`, {
        expected: `${field} as the ERC-20 ${view} of contract_address`,
        actual: { label, rest: value.value, chain },
      });
    }
  }
  if (uncompared.length > 0)
    ctx.note(
      `${uncompared.length} record(s) not compared, their ${field} holds no value of its type (its field check judges that): ${uncompared.slice(0, 5).join('; ')}`,
    );
  if (judged === 0) blockedIfMisnamed(tokens, ['contract_address', field]);
  if (judged === 0) skip(`no listed token answered the ERC-20 view for ${field} through eth_call with a ${field} that could be compared`);
  ctx.note(`${judged} of ${tokens.length} record(s) compared with the chain`);
}

type Meta = { id: string; statements: string[]; level: 'required' | 'advisory'; title: string };

/** One REST field against one chain reading, for every record: a check of section 2.1. */
function viewCheck(
  meta: Meta,
  field: string,
  view: string,
  read: (ctx: CheckContext<'rest' | 'rpc'>, address: string) => Promise<unknown>,
  agrees: Agrees,
): Check {
  return check({ ...meta, needs: ['rest', 'rpc'] }, (ctx) => compareAll(ctx, field, view, (a) => read(ctx, a), agrees));
}

/** totalSupply() / 10^decimals() as a double, the normalization 2.1 describes. */
async function normalizedSupply(ctx: CheckContext<'rest' | 'rpc'>, address: string): Promise<number | undefined> {
  const [raw, decimals] = await Promise.all([readView(ctx, address, 'totalSupply'), readView(ctx, address, 'decimals')]);
  if (typeof raw !== 'bigint' || decimals === undefined) return undefined;
  return Number(raw) / 10 ** Number(decimals);
}

/** The scale error 2.1 rules out: off by a whole power of ten (raw, or normalized with other decimals). */
export function powerOfTenOff(rest: number, chain: number): number | undefined {
  if (!(rest > 0 && chain > 0)) return undefined;
  const k = Math.round(Math.log10(rest / chain));
  return k !== 0 && Math.abs(rest / (chain * 10 ** k) - 1) < 1e-6 ? k : undefined;
}

/**
 * The confusion 2.1 rules out by name ("a token-unit amount, not a share count. Shares =
 * total_supply * multiplier"): the record's share count served as its total_supply. Like a
 * power-of-ten slip, a sure violation: supply may move between the REST read and the chain read,
 * but not by exactly the record's own multiplier. A multiplier of 1 (or none to read) tells nothing.
 */
export function servedAsShares(rest: number, chain: number, multiplier: unknown): boolean {
  const m = numericValue(multiplier);
  if (m === undefined || !(m > 0 && Number.isFinite(m)) || !(rest > 0 && chain > 0)) return false;
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  return !close(rest, chain) && close(rest, chain * m);
}

const SUPPLY = 'totalSupply() / 10^decimals()';

export const erc20Checks: Check[] = [
  viewCheck(
    {
      id: 'cross.token.symbol.matches-chain',
      statements: ['2.1.2'],
      level: 'required',
      title: 'symbol is the ERC-20 symbol() of the token at contract_address',
    },
    'symbol',
    'symbol()',
    (ctx, a) => readView(ctx, a, 'symbol'),
    (rest, chain) => (typeof rest === 'string' ? rest === chain : undefined),
  ),
  viewCheck(
    {
      id: 'cross.token.decimals.matches-chain',
      statements: ['2.1.4'],
      level: 'required',
      title: 'decimals is the ERC-20 decimals() of the token at contract_address',
    },
    'decimals',
    'decimals()',
    (ctx, a) => readView(ctx, a, 'decimals'),
    (rest, chain) => {
      const n = numericValue(rest);
      return n === undefined ? undefined : n === Number(chain);
    },
  ),
  // Only a power-of-ten error or the share count is a sure violation: supply may move (mint,
  // burn) between the REST read and the chain read, but never by exactly 10^k or the multiplier.
  viewCheck(
    {
      id: 'cross.token.total-supply.normalized',
      statements: ['2.1.5'],
      level: 'required',
      title: 'total_supply is totalSupply() / 10^decimals, not off by 10^k nor shares',
    },
    'total_supply',
    SUPPLY,
    normalizedSupply,
    (rest, chain, record) => {
      const n = numericValue(rest);
      if (n === undefined) return undefined;
      const multiplier = fieldOf(record, 'multiplier');
      if ('value' in multiplier && servedAsShares(n, chain as number, multiplier.value))
        return `it is the share count (the chain's amount × multiplier ${show(multiplier.value, 20)}), not the token-unit amount 2.1 asks for`;
      return powerOfTenOff(n, chain as number) === undefined;
    },
  ),
  viewCheck(
    {
      id: 'cross.token.total-supply.matches-chain',
      statements: ['2.1.5'],
      level: 'advisory',
      title: 'total_supply equals totalSupply() / 10^decimals() at "latest"',
    },
    'total_supply',
    SUPPLY,
    normalizedSupply,
    (rest, chain) => {
      const n = numericValue(rest);
      return n === undefined ? undefined : Math.abs(n - (chain as number)) <= 1e-9 * Math.max(1, Math.abs(chain as number));
    },
  ),
];
