import type { RunDocument } from '../../verdict/document';
import { json } from './exchange-text';
import { jsonForLogs } from '../inert-text';

export function renderJson(doc: RunDocument): string {
  return jsonForLogs(json(doc)) + '\n';
}
