// The run's evidence: each violation of a cited rule, recorded the moment a check sees it. The
// harness owns this ledger. A check appends to its page (ctx.violation, or fail(), which records
// before it throws); nothing removes from it; and the runner derives the check's outcome from it.
// So a violation already seen stands whatever comes after it in the same check: an interface fact
// (credentials refused, a gateway down, throttling), an exception, a timeout, the deadline or an
// interrupt. The check is failed, and what interrupted it is stated beside the violation.
import { AsyncLocalStorage } from 'node:async_hooks';

/** One violation as it was seen: the words, the statements it broke (absent: all the check declares), what was expected and what came. */
export interface Violation {
  message: string;
  violated?: readonly string[];
  expected?: unknown;
  actual?: unknown;
  hint?: string;
}

/**
 * The violations a page keeps whole: beyond them only their number grows, so a check that finds
 * a list of a hundred thousand records each wrong holds bounded memory. None is forgotten: the
 * result says how many there were.
 */
export const KEPT_VIOLATIONS = 100;

/** One check's page of the ledger (one sample of it, under --samples): append-only. */
export class EvidencePage {
  readonly #kept: Violation[] = [];
  readonly #sources = new WeakSet<object>();
  #count = 0;

  constructor(readonly check: string) {}

  /** Append a violation. `source`, the error that carried it, is recorded once however often it is seen (fail() records it, the runner sees it thrown). */
  record(v: Violation, source?: object): void {
    if (source) {
      if (this.#sources.has(source)) return;
      this.#sources.add(source);
    }
    this.#count++;
    if (this.#kept.length < KEPT_VIOLATIONS) this.#kept.push(Object.freeze({ ...v }));
  }

  /** The violations kept whole, in the order they were seen (a copy: the page is changed only by record). */
  get violations(): readonly Violation[] {
    return [...this.#kept];
  }

  /** How many violations were seen, kept whole or not. */
  get count(): number {
    return this.#count;
  }
}

/** The run's ledger: a page per check run (per sample), none ever taken out. */
export class Evidence {
  readonly #pages: EvidencePage[] = [];

  open(check: string): EvidencePage {
    const page = new EvidencePage(check);
    this.#pages.push(page);
    return page;
  }
}

/** The page of the check whose code is running: what fail() records into. */
const current = new AsyncLocalStorage<EvidencePage>();

/** Run a check's body with its page as the one fail() records into. */
export function withPage<T>(page: EvidencePage, body: () => T): T {
  return current.run(page, body);
}

/**
 * Run `body` outside any check's page: a shared observation several checks judge belongs to none
 * of them, and a failure it throws reaches each asker, whose runner records it on its own page.
 */
export function outsidePages<T>(body: () => T): T {
  return current.exit(body);
}

/** Record a violation on the page of the check running now, if any (fail() calls this before it throws). */
export function recordOnCurrentPage(v: Violation, source: object): void {
  current.getStore()?.record(v, source);
}
