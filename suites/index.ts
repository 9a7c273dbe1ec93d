import type { Check } from '../src/harness/check';
import { checks as cross } from './cross';
import { checks as preconf } from './preconf';
import { checks as rest } from './rest';
import { checks as rpc } from './rpc';

/** Every check of the suite, in report order. Each group's index exports `checks`. */
export function allChecks(): Check[] {
  const all = [...rest, ...rpc, ...cross, ...preconf];
  const seen = new Set<string>();
  for (const c of all) {
    if (seen.has(c.id)) throw new Error(`duplicate check id ${c.id}`);
    seen.add(c.id);
  }
  return all;
}
