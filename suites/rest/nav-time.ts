/**
 * Spec 2.1, nav_price_updated_at beyond its format (which fields.ts judges): the time of the
 * feed's last onchain update, so neither in the future nor before any chain existed, and, when
 * the user gives --nav-max-age, no older than that (advisory: the spec leaves staleness to the
 * consumer, rule 2). A record whose time is not an RFC 3339 date-time is the field check's.
 */
import { check, type Check } from '../../src/harness/check';
import { notGiven, skip } from '../../src/harness/verdict';
import { show } from '../../src/harness/json';
import { parseRfc3339 } from '../../src/harness/formats';
import { bad, cannotJudge, fieldOf, judgeRecords, numberField, OK, type Judgement } from '../../src/harness/records';

/** nav_price_updated_at as a Date, or a cannot-judge verdict (the format is fields.ts's rule). */
function updatedAt(record: unknown): { at: Date; raw: string } | { verdict: Judgement } {
  const f = fieldOf(record, 'nav_price_updated_at');
  if ('missing' in f) return { verdict: f.missing };
  const at = parseRfc3339(f.value);
  if (!at) return { verdict: cannotJudge(`nav_price_updated_at is not an RFC 3339 date-time (${show(f.value, 60)})`) };
  return { at, raw: f.value as string };
}

function duration(sec: number): string {
  const s = Math.round(sec);
  if (Math.abs(s) < 120) return `${s} s`;
  if (Math.abs(s) < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

export const navUpdatedNotFuture = check(
  {
    id: 'rest.token.nav-price-updated-at.not-future',
    statements: ['2.1.9'],
    level: 'required',
    needs: ['rest'],
    title: 'nav_price_updated_at is not in the future (clock skew allowed)',
  },
  async (ctx) => {
    const skew = ctx.settings.clockSkewSec;
    await judgeRecords(ctx, { expected: `nav_price_updated_at <= now + ${skew} s (clock-skew allowance)` }, (record) => {
      const t = updatedAt(record);
      if ('verdict' in t) return t.verdict;
      const aheadSec = (t.at.getTime() - Date.now()) / 1000;
      return aheadSec <= skew
        ? OK
        : bad(`nav_price_updated_at is ${duration(aheadSec)} in the future (allowance ${skew} s, now ${new Date().toISOString()})`, t.raw);
    });
  },
);

/**
 * 2.1: nav_price_updated_at is the time of the feed's last onchain update (its latest round's
 * updatedAt). No EVM chain published anything before Ethereum's first block after genesis
 * (block 1, 2015-07-30T15:26:28Z; genesis itself carries timestamp 0), so an earlier time, the
 * Unix epoch above all, is no onchain update: a server that read the round's startedAt of an
 * empty round, or a zero timestamp. The token's own deployment block would be a tighter bound,
 * but finding it needs the chain's history (an archive node), which the REST checks do not have.
 * A record with no NAV (nav_price 0, or left out as the proto3 default) claims no update, so
 * its time is not judged here.
 */
export const EARLIEST_ONCHAIN_TIME = new Date('2015-07-30T15:26:28Z');

export const navUpdatedAfterChains = check(
  {
    id: 'rest.token.nav-price-updated-at.onchain-era',
    statements: ['2.1.9'],
    level: 'required',
    needs: ['rest'],
    title: 'a real nav_price has an update time no chain predates (not the Unix epoch)',
  },
  (ctx) =>
    judgeRecords(
      ctx,
      { expected: `nav_price_updated_at at or after ${EARLIEST_ONCHAIN_TIME.toISOString()} (Ethereum block 1) when nav_price is a real value (> 0)` },
      (record) => {
        const nav = numberField(record, 'nav_price');
        if ('verdict' in nav) return nav.verdict;
        if (!(nav.n > 0 && Number.isFinite(nav.n))) return cannotJudge(`nav_price ${nav.n} is no published NAV, so no update time is claimed`);
        const t = updatedAt(record);
        if ('verdict' in t) return t.verdict;
        if (t.at.getTime() >= EARLIEST_ONCHAIN_TIME.getTime()) return OK;
        const epoch = t.at.getTime() === 0 ? 'the Unix epoch (a zero timestamp), ' : '';
        return bad(
          `nav_price_updated_at is ${epoch}before any EVM chain published a block (${EARLIEST_ONCHAIN_TIME.toISOString()}), while nav_price is ${nav.n}: no onchain update happened then (a zero or startedAt timestamp read instead of the round's updatedAt?)`,
          t.raw,
        );
      },
    ),
);

/** Advisory: the spec sets no staleness bound (2.1 rules 1-2, 8); the consumer chooses one. */
export const navUpdatedMaxAge = check(
  {
    id: 'rest.token.nav-price-updated-at.max-age',
    statements: ['2.1.12'],
    level: 'advisory',
    needs: ['rest'],
    title: 'nav_price_updated_at is no older than --nav-max-age',
  },
  async (ctx) => {
    const maxAge = ctx.settings.navMaxAgeSec;
    if (maxAge === undefined) skip('no --nav-max-age given', { outOfScope: notGiven('--nav-max-age') });
    await judgeRecords(ctx, { expected: `nav_price_updated_at no older than ${duration(maxAge)} (--nav-max-age)` }, (record) => {
      const t = updatedAt(record);
      if ('verdict' in t) return t.verdict;
      const ageSec = (Date.now() - t.at.getTime()) / 1000;
      return ageSec <= maxAge
        ? OK
        : bad(
            `nav_price was last updated ${duration(ageSec)} ago, beyond --nav-max-age ${duration(maxAge)} (feeds pause outside market hours, 2.1 rule 1)`,
            t.raw,
          );
    });
  },
);

export const navTimeChecks: Check[] = [navUpdatedNotFuture, navUpdatedAfterChains, navUpdatedMaxAge];
