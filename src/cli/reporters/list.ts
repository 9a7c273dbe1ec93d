// --list: the selected checks, one per line as text, or with --json one JSON document whose
// `checks` hold the same fields as results.json's (`jq -r '.checks[].id'` reads either).
import type { CheckMeta } from '../../harness/check';
import { PKG } from '../../harness/paths';
import { SPEC_VERSION } from '../../verdict/document';
import { json } from './exchange-text';

/** One line per check: id, section, level, needs, title, separated by tabs. */
export function listText(checks: readonly CheckMeta[]): string {
  return checks.map((c) => `${c.id}\t${c.section}\t${c.level}\t${c.needs.join('+')}\t${c.title}\n`).join('');
}

/** The suite, the spec version and each check's metadata, as results.json names them. */
export function listJson(checks: readonly CheckMeta[]): string {
  const meta = checks.map(({ id, title, statements, section, level, needs }) => ({ id, title, statements, section, level, needs }));
  return json({ suite: { name: PKG.name, version: PKG.version }, spec: { version: SPEC_VERSION }, checks: meta }) + '\n';
}
