import type { RunDocument } from '../results';
import { json } from './shared';

export function renderJson(doc: RunDocument): string {
  return json(doc) + '\n';
}
