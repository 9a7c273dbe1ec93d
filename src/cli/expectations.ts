import { readRegularText, UnreadableFile } from '../harness/regular-file';
import { ConfigError } from './config';

/** A known failure of a given target, as data (WPT / hive expectation lists). */
export interface Expectation {
  id: string;
  reason: string;
  link?: string;
}

/** An expectations file lists a few check ids with their reasons: a few kilobytes; a mebibyte is far past any real one. */
const MAX_EXPECTATIONS_BYTES = 1024 * 1024;

export interface ExpectationsFile {
  target?: string;
  expectations: Expectation[];
}

export function loadExpectations(file: string, knownIds: ReadonlySet<string>): ExpectationsFile {
  let raw: unknown;
  try {
    const text = readRegularText(file, MAX_EXPECTATIONS_BYTES);
    // yaml is loaded only for a YAML file: at the top it cost every run's start 45 ms.
    raw = /\.json$/i.test(file) ? JSON.parse(text) : (require('yaml') as typeof import('yaml')).parse(text);
  } catch (err) {
    if (err instanceof UnreadableFile) throw new ConfigError(`--expectations (or EXPECTATIONS): ${err.message}`);
    throw new ConfigError(`--expectations (or EXPECTATIONS): cannot read ${file}: ${(err as Error).message}`);
  }
  const list = (raw as { expectations?: unknown })?.expectations;
  if (!Array.isArray(list)) throw new ConfigError(`--expectations: ${file} must have a top-level "expectations" list`);
  const seen = new Set<string>();
  const expectations = list.map((e, i): Expectation => {
    const item = e as Partial<Expectation>;
    if (typeof item?.id !== 'string' || typeof item.reason !== 'string' || item.reason.trim() === '') {
      throw new ConfigError(`--expectations: ${file} entry ${i + 1} needs a string "id" and a non-empty "reason"`);
    }
    if (!knownIds.has(item.id)) throw new ConfigError(`--expectations: ${file} entry ${i + 1} names "${item.id}", which is no check of this suite`);
    if (seen.has(item.id)) throw new ConfigError(`--expectations: ${file} names "${item.id}" twice`);
    seen.add(item.id);
    return { id: item.id, reason: item.reason, ...(typeof item.link === 'string' ? { link: item.link } : {}) };
  });
  return { target: typeof (raw as { target?: unknown }).target === 'string' ? (raw as { target: string }).target : undefined, expectations };
}
