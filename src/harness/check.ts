import type { RestClient } from './rest';
import type { RpcClient } from './rpc';
import type { Signer } from './signer';

export type Level = 'required' | 'advisory';
/** What a check needs from the run; a check whose needs are not met is skipped with the reason. */
export type Need = 'rest' | 'rpc' | 'signer' | 'profile:public' | 'profile:dedicated';
export type Group = 'rest' | 'rpc' | 'cross' | 'preconf';
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
  /** --archive: the node must serve state and history at any block; pruned-history errors fail (absent: false, they skip). */
  archive?: boolean;
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
}

export type CheckFn = (ctx: CheckContext) => Promise<void>;

export interface Check extends CheckMeta {
  run: CheckFn;
}

const ID = /^(rest|rpc|cross|preconf)\.[a-z0-9][a-zA-Z0-9-]*(\.[a-zA-Z0-9-]+)*$/;
const SECTION = /^\d+(\.\d+)*(, \d+(\.\d+)*)*$/;

/** Declare a check: one rule, the clause it enforces, and what it needs. */
export function check(meta: CheckMeta, run: CheckFn): Check {
  if (!ID.test(meta.id)) throw new Error(`check id "${meta.id}" must look like <rest|rpc|cross|preconf>.<subject>.<rule>`);
  if (!SECTION.test(meta.section)) throw new Error(`check ${meta.id}: section "${meta.section}" must look like "4.5" or "4.3, 5.2"`);
  return { ...meta, run };
}

export function groupOf(id: string): Group {
  return id.split('.')[0] as Group;
}

export function sectionsOf(section: string): string[] {
  return section.split(',').map((s) => s.trim());
}
