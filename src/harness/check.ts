import type { RestClient } from './rest';
import type { RpcClient } from './rpc';
import type { Signer } from './signer';
import type { OpenApiDocument } from './openapi-document';
import type { FailureDetail } from './verdict';

export type Level = 'required' | 'advisory';
/** What a check needs from the run; a check whose needs are not met is skipped with the reason. */
export type Need = 'rest' | 'rpc' | 'signer' | 'profile:public' | 'profile:dedicated' | 'openapi';
/** The check groups, in the order the spec presents them: the one list the Group type, the id pattern and --only derive from. */
export const GROUPS = ['rest', 'rpc', 'cross', 'preconf'] as const;
export type Group = (typeof GROUPS)[number];
/** The two interfaces a target serves: REST at --base-url, JSON-RPC at --rpc-url. */
export type Interface = 'rest' | 'rpc';
export type Status = 'passed' | 'failed' | 'skipped' | 'inconclusive';
export type Profile = 'public' | 'dedicated';

export interface CheckMeta {
  /** Stable id, `<group>.<subject>.<rule>`; its first segment is the group used by --only. */
  id: string;
  /** What is checked, in a few words (at most 80 characters); the rule's text comes from the statements. */
  title: string;
  /**
   * The statements of specs/rules.yaml the check enforces, most specific first: `4.5.2` is
   * statement 2 of section 4.5, `2.1.r4` row 4 of the table of 2.1.
   */
  statements: string[];
  /** The sections of those statements, derived from them, for display ("4.5" or "4.3, 5.2"): never parsed back. */
  section: string;
  level: Level;
  needs: Need[];
}

/** What a check declares; its `section` is derived from its statements. */
export type CheckDeclaration = Omit<CheckMeta, 'section'>;

/** The settings a check may read; secrets are deliberately absent. */
export interface CheckSettings {
  profile: Profile;
  clockSkewSec: number;
  navMaxAgeSec?: number;
  timeoutMs: number;
  /** The API's own published OpenAPI document (--openapi), read or fetched once before the checks run. */
  openapi?: OpenApiDocument;
  /** --archive: the node must serve state and history at any block; pruned-history errors fail (absent: false, they skip). */
  archive?: boolean;
  /** --samples N: answers per read-only question (absent: 1). */
  samples?: number;
  /**
   * The longest block time the target may have (absent: 12 s, the longest the suite is built
   * for): how long the pre-confirmation pass waits for a seal before it says the node stopped
   * sealing (inconclusive, never failed), and for its transactions to be sealed.
   */
  maxBlockTimeMs?: number;
  /**
   * Where the target's seals fall, when the suite knows it: the embedded reference seals on a
   * fixed grid and says where it starts. The pre-confirmation pass's first attempt then waits for
   * a seal due too soon for its transactions to show before it, instead of being spoiled by it
   * (preconf/send.ts). Absent for any other target: its seals are found by watching.
   */
  sealGrid?: SealGrid;
}

/** Seals every `everyMs`, one of them at `atMs` (epoch milliseconds, this machine's clock). */
export interface SealGrid {
  atMs: number;
  everyMs: number;
}

/** How long a shared outcome stands: for the run (the default), or only while `keepIf` holds of it (never a rejection). */
export interface SharedOptions<T> {
  keepIf?: (value: T) => boolean;
}

/** What a run-scoped shared observation may use (see CheckContext.shared). */
export interface SharedScope {
  /** A JSON-RPC client whose exchanges are kept under `lane`, for the checks that name that lane. */
  rpc(lane: string): RpcClient;
  /** A REST client whose exchanges are kept under `lane`, likewise. */
  rest(lane: string): RestClient;
  /** Present when the run has a signer. */
  signer?: Signer;
  settings: CheckSettings;
  /** Aborted at the run deadline, on interrupt, or after one check's time limit. */
  signal: AbortSignal;
  /** Another shared observation this one is made of (CheckContext.shared): its exchanges of `lanes` are kept with this one's. */
  shared<T>(key: string, lanes: readonly string[], observe: (scope: SharedScope) => Promise<T>, sharing?: SharedOptions<T>): Promise<T>;
}

/** What every check gets, whatever it needs. */
interface ContextBase {
  meta: CheckMeta;
  settings: CheckSettings;
  /** Aborted at the run deadline or on interrupt; long waits must honour it. */
  signal: AbortSignal;
  /** Record a measurement (e.g. latency percentiles) in the results. */
  metric(name: string, value: unknown): void;
  /** A line of explanation kept with the result (shown in reports). */
  note(text: string): void;
  /**
   * A violation of a cited rule, seen now, recorded in the run's evidence at once; the check goes
   * on judging (fail() records the same way and ends it). The check is failed by it whatever
   * ends the check afterwards: an interface fact, an exception, a timeout, the deadline.
   */
  violation(message: string, detail?: FailureDetail): void;
  /**
   * One observation that several checks of the run judge (e.g. the pre-confirmation pass): the
   * first check to ask for `key` runs `observe`; the others get the same outcome (its value, or
   * the same skip / inconclusive). The observation records its exchanges per lane; this check's
   * transcript receives those of the lanes it names, so each check shows what it judged.
   * `sharing.keepIf`: the outcome stands only while it holds of it (never a rejection); otherwise
   * the next asker observes again.
   */
  shared<T>(key: string, lanes: readonly string[], observe: (scope: SharedScope) => Promise<T>, sharing?: SharedOptions<T>): Promise<T>;
  /**
   * What the samples of the run (--samples N) learn once and the later ones need not wait for
   * again: one mutable record per key for the whole run, every wave (`init` makes it). It holds
   * facts of time (e.g. "the pending block held nothing unsealed for 2 s: a quiet chain"),
   * never a verdict or an answer: each sample still asks and judges its own. Without samples, a
   * record for this one run. Keys are the run's, not the check's: checks that learn the same fact
   * share it (the two pending-block watches share whether the chain is quiet).
   */
  acrossSamples<T extends object>(key: string, init: () => T): T;
}

/** What a check may declare in `needs` and receive, each given only to the checks that declare it. */
interface Clients {
  rest: RestClient;
  rpc: RpcClient;
  signer: Signer;
  /** The API's published OpenAPI document (--openapi), read or fetched once before the checks run. */
  openapi: OpenApiDocument;
}

/**
 * The context of a check that declared `needs` N: `rest`, `rpc`, `signer` and `openapi` exist (in
 * the type and at run time) only when N names them. A check that uses a client it did not declare does
 * not compile. `CheckContext` alone declares no client: what a helper that uses none takes.
 */
export type CheckContext<N extends Need = never> = ContextBase & { [K in N & keyof Clients]: Clients[K] };

/** The context as the runner builds it: a client is present exactly when the check declared it and the run has it. */
export type RunContext = ContextBase & Partial<Clients>;

export interface Check extends CheckMeta {
  run(ctx: RunContext): Promise<void>;
}

const ID = new RegExp(`^(${GROUPS.join('|')})\\.[a-z0-9][a-zA-Z0-9-]*(\\.[a-zA-Z0-9-]+)*$`);
/** A statement id: its section, then the statement's number or `r` and a table row's number. */
export const STATEMENT_ID = /^\d+(\.\d+)*\.r?[1-9]\d*$/;

/** The section a statement belongs to: "4.5" for "4.5.2" and for "4.5.r1". */
export function sectionOfStatement(id: string): string {
  return id.slice(0, id.lastIndexOf('.'));
}

/**
 * Declare a check: one rule, the statements it enforces, and what it needs. The body sees exactly
 * the clients its `needs` name: the runner runs a check only when every need is met and gives it
 * those clients (see RunContext), which is what the looser implementation signature relies on.
 */
export function check<N extends Need>(meta: CheckDeclaration & { needs: N[] }, run: (ctx: CheckContext<N>) => Promise<void>): Check;
export function check(meta: CheckDeclaration, run: (ctx: RunContext) => Promise<void>): Check {
  if (!ID.test(meta.id)) throw new Error(`check id "${meta.id}" must look like <${GROUPS.join('|')}>.<subject>.<rule>`);
  if (!meta.statements.length) throw new Error(`check ${meta.id}: statements must name at least one statement of specs/rules.yaml`);
  const bad = meta.statements.filter((s) => !STATEMENT_ID.test(s));
  if (bad.length) throw new Error(`check ${meta.id}: statement id(s) ${bad.join(', ')} must look like "4.5.2" (statement) or "2.1.r4" (table row)`);
  if (new Set(meta.statements).size !== meta.statements.length) throw new Error(`check ${meta.id}: a statement is named twice`);
  return { ...meta, section: sectionsOf(meta.statements).join(', '), run };
}

export function groupOf(id: string): Group {
  return id.split('.')[0] as Group;
}

/** The sections of statements, in order, each once: ["4.5", "1.4"] for ["4.5.2", "1.4.1"]. */
export function sectionsOf(statements: readonly string[]): string[] {
  return [...new Set(statements.map(sectionOfStatement))];
}
