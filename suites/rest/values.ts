/**
 * Spec 2.1, the values of a record beyond their JSON type (which fields.ts judges): ranges,
 * scale, uniqueness and the icon's URL (nav-time.ts judges nav_price_updated_at). Each check is one rule over every record; a record whose field has
 * the wrong type is left to the field check and noted here, never passed or failed twice.
 */
import { check, type Check } from '../../src/harness/check';
import { fail, skip } from '../../src/harness/verdict';
import { show } from '../../src/harness/json';
import { hasAddressShape, ICON_URL_SCHEMES, iconUrlScheme, isIconUrl } from '../../src/harness/formats';
import { bad, cannotJudge, EMPTY_LIST, fetchList, fieldOf, judgeRecords, numberField, OK, recordLabel, type Judgement } from '../../src/harness/records';
import { blockedIfMisnamed } from '../../src/harness/field-names';
import { judgeField } from './fields';
import { navTimeChecks } from './nav-time';

export const addressUnique = check(
  {
    id: 'rest.token.contract-address.unique',
    statements: ['2.1.3'],
    level: 'required',
    needs: ['rest'],
    title: 'no two records share a contract_address (compared case-insensitively)',
  },
  async (ctx) => {
    const tokens = await fetchList(ctx);
    if (tokens.length === 0) skip(EMPTY_LIST);
    // Each address's first record, and every record of an address seen again: a list of any
    // length costs one map entry per address, and the records are named only when repeated.
    const first = new Map<string, number>();
    const repeated = new Map<string, number[]>();
    let judged = 0;
    for (let i = 0; i < tokens.length; i++) {
      const f = fieldOf(tokens[i], 'contract_address');
      if ('missing' in f || !hasAddressShape(f.value)) continue;
      judged++;
      const key = f.value.toLowerCase();
      const at = first.get(key);
      if (at === undefined) first.set(key, i);
      else (repeated.get(key) ?? repeated.set(key, [at]).get(key)!).push(i);
    }
    if (judged === 0) {
      blockedIfMisnamed(tokens, ['contract_address']);
      skip('no record has a contract_address of the form 0x + 40 hex digits to compare');
    }
    // In the order of each address's first record.
    const dups = [...repeated.entries()]
      .sort(([, a], [, b]) => a[0]! - b[0]!)
      .map(([address, at]) => [address, at.map((i) => recordLabel(tokens[i], i, tokens))] as const);
    if (dups.length > 0) {
      fail(
        `${dups.length} contract_address value(s) listed more than once: ${dups
          .slice(0, 10)
          .map(([a, where]) => `${a} in ${where.join(', ')}`)
          .join('; ')}`,
        {
          expected: 'each contract_address at most once',
          actual: dups.slice(0, 50).map(([address, records]) => ({ address, records })),
        },
      );
    }
    ctx.note(`${judged} address(es) compared, all distinct`);
  },
);

/**
 * decimals is the ERC-20 token's decimals (1.1: each record is an ERC-20 token; 2.1: "Number of
 * decimals used by the token"), which ERC-20 defines as uint8: an integer 0..255.
 */
export const decimalsRange = check(
  {
    id: 'rest.token.decimals.range',
    statements: ['2.1.4'],
    level: 'required',
    needs: ['rest'],
    title: 'decimals is within 0..255 (an ERC-20 uint8)',
  },
  (ctx) =>
    judgeRecords(ctx, { expected: 'decimals is an integer 0..255', field: 'decimals' }, (record) => {
      const f = numberField(record, 'decimals');
      if ('verdict' in f) return f.verdict;
      if (!Number.isInteger(f.n)) return cannotJudge(`decimals is not an integer (${f.n}; judged by rest.token.field.decimals)`);
      return f.n >= 0 && f.n <= 255 ? OK : bad('decimals is outside 0..255', f.n);
    }),
);

/** A finite number at least `min` (or above it, when `strict`). */
function numberAtLeast(field: string, min: number, strict: boolean) {
  return (record: unknown): Judgement => {
    const f = numberField(record, field);
    if ('verdict' in f) return f.verdict;
    if (!Number.isFinite(f.n)) return bad(`${field} is not a finite number`, f.n);
    const ok = strict ? f.n > min : f.n >= min;
    return ok ? OK : bad(`${field} is ${strict ? 'not greater than' : 'less than'} ${min}`, f.n);
  };
}

export const totalSupplyNonNegative = check(
  {
    id: 'rest.token.total-supply.non-negative',
    statements: ['2.1.5'],
    level: 'required',
    needs: ['rest'],
    title: 'total_supply is a finite number >= 0',
  },
  (ctx) => judgeRecords(ctx, { expected: 'total_supply is finite and >= 0', field: 'total_supply' }, numberAtLeast('total_supply', 0, false)),
);

export const multiplierPositive = check(
  {
    id: 'rest.token.multiplier.positive',
    statements: ['2.1.6'],
    level: 'required',
    needs: ['rest'],
    title: 'multiplier is a finite number > 0',
  },
  (ctx) => judgeRecords(ctx, { expected: 'multiplier is finite and > 0', field: 'multiplier' }, numberAtLeast('multiplier', 0, true)),
);

/**
 * 2.1: multiplier is "adjusted for an 18-decimal fixed-point scale. 1.0 means no adjustment".
 * A server that forgets the adjustment lists the raw onchain value, 1e18 for "no adjustment";
 * one that applies it twice lists 1e-18. The bounds are the geometric midpoints between 1
 * (adjusted once) and 1e18 or 1e-18: an adjusted multiplier of 1e9 would mean a billion shares
 * per token unit and one of 1e-9 a billionth of a share, far beyond any cumulative split,
 * reverse split or dividend adjustment. So >= 1e9 is taken as the raw fixed-point value and
 * < 1e-9 as a value scaled down twice, and the failure says what adjusting once would give.
 */
export const RAW_MULTIPLIER_THRESHOLD = 1e9;
export const TWICE_SCALED_MULTIPLIER_THRESHOLD = 1e-9;

export const multiplierNormalized = check(
  {
    id: 'rest.token.multiplier.normalized',
    statements: ['2.1.6'],
    level: 'required',
    needs: ['rest'],
    title: 'multiplier is adjusted once: within 1e-9..1e9, not raw 1e18 nor divided twice',
  },
  (ctx) =>
    judgeRecords(
      ctx,
      {
        expected: `multiplier adjusted once for the 18-decimal scale (${TWICE_SCALED_MULTIPLIER_THRESHOLD} <= multiplier < ${RAW_MULTIPLIER_THRESHOLD}; 1.0 means no adjustment)`,
        field: 'multiplier',
      },
      (record) => {
        const f = numberField(record, 'multiplier');
        if ('verdict' in f) return f.verdict;
        if (!Number.isFinite(f.n) || f.n <= 0) return cannotJudge(`multiplier is not a finite number > 0 (${f.n}; judged by rest.token.multiplier.positive)`);
        if (f.n >= RAW_MULTIPLIER_THRESHOLD)
          return bad(`multiplier looks like the raw 18-decimal fixed-point value, not adjusted (adjusted it would be ${f.n / 1e18})`, f.n);
        if (f.n < TWICE_SCALED_MULTIPLIER_THRESHOLD) return bad(`multiplier looks divided by 10^18 twice (adjusted once it would be ${f.n * 1e18})`, f.n);
        return OK;
      },
    ),
);

// int64 bounds as doubles. JSON numbers are parsed to doubles, so 2^63 - 1 arrives as 2^63:
// the upper bound is inclusive of 2^63 to never fail a value the server sent in range.
const INT64_MAX_AS_DOUBLE = 2 ** 63;
const INT64_MIN = -(2 ** 63);

/**
 * Judge every element of paused_features (when it is an array) with `element`, which returns
 * what is wrong, or undefined when the element is fine. Elements that are not integers are the
 * field check's rule (rest.token.field.paused-features): a record holding one is not judged here
 * unless another element breaks this rule.
 */
function eachPausedFeature(element: (v: number) => string | undefined) {
  return (record: unknown): Judgement => {
    const f = fieldOf(record, 'paused_features');
    if ('missing' in f) return f.missing;
    if (!Array.isArray(f.value)) return cannotJudge(`paused_features is not an array (${show(f.value, 60)})`);
    const items: unknown[] = f.value;
    const wrong = items.flatMap((v, i) => {
      const why = typeof v === 'number' && Number.isInteger(v) ? element(v) : undefined;
      return why === undefined ? [] : [`paused_features[${i}] ${why}`];
    });
    if (wrong.length > 0) return bad(wrong.join(', '), f.value);
    const notInteger = items.findIndex((v) => typeof v !== 'number' || !Number.isInteger(v));
    if (notInteger >= 0) return cannotJudge(`paused_features[${notInteger}] is not an integer (${show(items[notInteger], 40)})`);
    return OK;
  };
}

export const pausedFeaturesInt64 = check(
  {
    id: 'rest.token.paused-features.int64-range',
    statements: ['2.1.7'],
    level: 'required',
    needs: ['rest'],
    title: 'every paused_features value is an integer within the int64 range',
  },
  (ctx) =>
    judgeRecords(
      ctx,
      { expected: 'every paused_features element is an integer in the int64 range', field: 'paused_features' },
      eachPausedFeature((v) => (v < INT64_MIN || v > INT64_MAX_AS_DOUBLE ? `is outside the int64 range (${v})` : undefined)),
    ),
);

/**
 * Advisory: 2.1 types paused_features as int64 and leaves the meanings unshown (rule 3); it
 * does not forbid negative values. A negative feature flag is unusual (contracts number their
 * features from 0) and worth a look, but not a violation of a stated rule.
 */
export const pausedFeaturesNonNegative = check(
  {
    id: 'rest.token.paused-features.non-negative',
    statements: ['2.1.7'],
    level: 'advisory',
    needs: ['rest'],
    title: 'paused_features holds no negative flag values',
  },
  (ctx) =>
    judgeRecords(
      ctx,
      { expected: 'every paused_features element is >= 0', field: 'paused_features' },
      eachPausedFeature((v) => (v < 0 ? `is negative (${v})` : undefined)),
    ),
);

export const navPriceNonNegative = check(
  {
    id: 'rest.token.nav-price.non-negative',
    statements: ['2.1.8'],
    level: 'required',
    needs: ['rest'],
    title: 'nav_price is a finite number >= 0',
  },
  (ctx) => judgeRecords(ctx, { expected: 'nav_price is finite and >= 0', field: 'nav_price' }, numberAtLeast('nav_price', 0, false)),
);

/**
 * 2.1: symbol is the "Ticker symbol of the token" and name the "Name of the underlying equity".
 * An empty string is neither, whether sent or left out by protobuf JSON (its proto3 default).
 * Only emptiness is judged: no ticker syntax or length is stated. Whitespace alone counts as empty.
 */
const NON_EMPTY: Array<[id: string, statements: string[], field: 'symbol' | 'name', what: string]> = [
  // The rows (the ticker symbol, the equity's name), not 2.1.2: a symbol() of "" on the chain is agreed with, and still no ticker.
  ['rest.token.symbol.non-empty', ['2.1.r2'], 'symbol', 'a ticker symbol'],
  ['rest.token.name.non-empty', ['2.1.r3'], 'name', 'the name of the underlying equity'],
];

function nonEmptyCheck([id, statements, field, what]: (typeof NON_EMPTY)[number]): Check {
  return check(
    {
      id,
      statements,
      level: 'required',
      needs: ['rest'],
      title: `${field} is not empty (absent is the proto3 default "")`,
    },
    (ctx) =>
      judgeRecords(ctx, { expected: `${field} is a non-empty string (${what})`, field }, (record) => {
        const f = fieldOf(record, field);
        if ('missing' in f) return f.missing;
        if (typeof f.value !== 'string') return cannotJudge(`${field} is not a string (${show(f.value, 60)}; judged by its field check)`);
        return f.value.trim() === '' ? bad(`${field} is empty: not ${what}`, f.value) : OK;
      }),
  );
}

/**
 * 2.1 types icon_url as a URL and nothing more. Token lists publish logos under ipfs:// as
 * often as https://, so any scheme a client loads an image from passes (formats.ts,
 * ICON_URL_SCHEMES); a URI that names code (javascript:), a page (data:text/html) or a place
 * no client loads from (ftp:, file:) is not the URL of an icon. What is no URI at all (relative,
 * empty, markup) fails the field check's format (url) and is left to it: one failure.
 */
export const iconUrlLocatesIcon = check(
  {
    id: 'rest.token.icon-url.resource-url',
    statements: ['2.1.10'],
    level: 'required',
    needs: ['rest'],
    title: 'icon_url is a URL an icon loads from (https, http, ipfs, ipns, ar, data:image)',
  },
  (ctx) =>
    judgeRecords(
      ctx,
      {
        expected: `icon_url is an absolute URL with a scheme an image is loaded from (${ICON_URL_SCHEMES.join(', ')}; data: only as image/*)`,
        field: 'icon_url',
      },
      (record) => {
        const f = fieldOf(record, 'icon_url');
        if ('missing' in f) return f.missing;
        // Not a string, or no URI at all (relative, empty, markup): the field check's format rule.
        if ('bad' in judgeField(record, 'icon_url')) return cannotJudge(`icon_url is not a URI (${show(f.value, 60)}; judged by rest.token.field.icon-url)`);
        return isIconUrl(f.value) ? OK : bad('icon_url is a URI but not one an icon can be loaded from', f.value);
      },
    ),
);

/**
 * Advisory: a plain http: icon is a URL and conformant, but a page served over https will not
 * load it (mixed content) and it travels unprotected. Content-addressed (ipfs, ipns, ar) and
 * inline (data:image) icons carry no such risk and are not flagged.
 */
export const iconUrlNotPlainHttp = check(
  {
    id: 'rest.token.icon-url.not-plain-http',
    statements: ['2.1.10'],
    level: 'advisory',
    needs: ['rest'],
    title: 'icon_url is not plain http: (https pages will not load it)',
  },
  (ctx) =>
    judgeRecords(ctx, { expected: 'icon_url is not an http: URL (https, ipfs, ipns, ar or data:image)', field: 'icon_url' }, (record) => {
      const f = fieldOf(record, 'icon_url');
      if ('missing' in f) return f.missing;
      const scheme = iconUrlScheme(f.value);
      if (scheme === undefined) return cannotJudge(`icon_url is not an icon URL (${show(f.value, 60)}; judged by rest.token.icon-url.resource-url)`);
      return scheme === 'http' ? bad('icon_url is plain http: browsers block it on https pages (mixed content)', f.value) : OK;
    }),
);

export const valueChecks: Check[] = [
  addressUnique,
  ...NON_EMPTY.map(nonEmptyCheck),
  decimalsRange,
  totalSupplyNonNegative,
  multiplierPositive,
  multiplierNormalized,
  pausedFeaturesInt64,
  pausedFeaturesNonNegative,
  navPriceNonNegative,
  ...navTimeChecks,
  iconUrlLocatesIcon,
  iconUrlNotPlainHttp,
];
