import type { RestClient } from './rest';
import type { RpcClient } from './rpc';
import type { Signer } from './signer';
import type { OpenApiDocument } from './openapi-document';

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
  title: string;
  /** Spec section(s) the check enforces, e.g. "4.5" or "4.3, 5.2". */
  section: string;
  level: Level;
  needs: Need[];
}

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
}

export interface CheckContext {
  meta: CheckMeta;
  rest: RestClient;
  rpc: RpcClient;
  /** Present only for checks that declare `needs: ['signer']`. */
  signer: Signer;
  settings: CheckSettings;
  /** Aborted at the run deadline or on interrupt; long waits must honour it. */
  signal: AbortSignal;
  /** Record a measurement (e.g. latency percentiles) in the results. */
  metric(name: string, value: unknown): void;
  /** A line of explanation kept with the result (shown in reports). */
  note(text: string): void;
  /**
   * One observation that several checks of the run judge (e.g. the pre-confirmation pass): the
   * first check to ask for `key` runs `observe`; the others get the same outcome (its value, or
   * the same skip / inconclusive). The observation records its exchanges per lane; this check's
   * transcript receives those of the lanes it names, so each check shows what it judged.
   */
  shared<T>(key: string, lanes: readonly string[], observe: (scope: SharedScope) => Promise<T>): Promise<T>;
}

export type CheckFn = (ctx: CheckContext) => Promise<void>;

export interface Check extends CheckMeta {
  run: CheckFn;
}

const ID = new RegExp(`^(${GROUPS.join('|')})\\.[a-z0-9][a-zA-Z0-9-]*(\\.[a-zA-Z0-9-]+)*$`);
const SECTION = /^\d+(\.\d+)*(, \d+(\.\d+)*)*$/;

/** Declare a check: one rule, the clause it enforces, and what it needs. */
export function check(meta: CheckMeta, run: CheckFn): Check {
  if (!ID.test(meta.id)) throw new Error(`check id "${meta.id}" must look like <${GROUPS.join('|')}>.<subject>.<rule>`);
  if (!SECTION.test(meta.section)) throw new Error(`check ${meta.id}: section "${meta.section}" must look like "4.5" or "4.3, 5.2"`);
  return { ...meta, run };
}

export function groupOf(id: string): Group {
  return id.split('.')[0] as Group;
}

export function sectionsOf(section: string): string[] {
  return section.split(',').map((s) => s.trim());
}
