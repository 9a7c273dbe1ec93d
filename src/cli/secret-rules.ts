// What a --secret may be. The gate masks every registered secret wherever it shows, in any letter
// case, in every byte the suite writes. A value that spells part of the suite's own words would
// be masked there too: `fail` turns the status "failed" into "***ed", `false` leaves results.json
// invalid JSON, `exitCode` hides the exit code. The verdict itself is decided before any masking
// and its fields are never masked in memory (maskOutside), but the files that state it are masked
// as text: so such a value is refused before anything runs (exit 2), with the rule it breaks.
import { rawSchemaAt } from '../harness/schemas';
import { Redactor } from '../harness/redact';
import { MIN_SECRET_LENGTH } from './config-values';

/** The JSON literals every results.json holds. */
const LITERALS = ['true', 'false', 'null'];
/** Words the certificate, predicate and badge state beside the schema's own. */
const PUBLISHED_WORDS = ['PASSED', 'WARNED', 'FAILED', 'conformant', 'non-conformant', 'incomplete', 'interrupted', 'exit'];
/** A value of digits and separators only this short may be a number, a date or a time the suite writes. */
const MIN_NUMERIC_SECRET_LENGTH = 16;

let words: string[] | undefined;

/** Every member name, enum value and constant of schemas/results.json, with the JSON literals and the published words. */
export function suiteVocabulary(): readonly string[] {
  if (words) return words;
  const out = new Set<string>([...LITERALS, ...PUBLISHED_WORDS]);
  const todo: unknown[] = [rawSchemaAt('results.json')];
  while (todo.length > 0) {
    const x = todo.pop();
    if (Array.isArray(x)) todo.push(...x);
    else if (x && typeof x === 'object') {
      for (const [k, v] of Object.entries(x)) {
        if (k === 'properties' && v && typeof v === 'object') for (const name of Object.keys(v)) out.add(name);
        if ((k === 'enum' || k === 'required') && Array.isArray(v)) for (const w of v) if (typeof w === 'string') out.add(w);
        if (k === 'const' && typeof v === 'string') out.add(v);
        if (k !== '$comment' && k !== 'pattern' && k !== '$id' && k !== '$schema') todo.push(v);
      }
    }
  }
  return (words = [...out]);
}

/**
 * The rule a secret breaks, in words that never quote it, or undefined when it may be masked
 * without garbling the suite's own words: at least MIN_SECRET_LENGTH characters, masking no word
 * of the suite's vocabulary (garblesVocabulary on this secret alone: the gate's own test, so any
 * letter case and every form the gate registers it in, `%66ailed` as `failed`), and not a short
 * run of digits. Said at configuration, naming the flag; garblesVocabulary then tries every
 * secret the run was given, wherever it came from, on the suite's own texts too.
 */
export function secretRuleBroken(secret: string): string | undefined {
  if (secret.length < MIN_SECRET_LENGTH) return `shorter than ${MIN_SECRET_LENGTH} characters`;
  if (garblesVocabulary(new Redactor().add(secret)))
    return "it is part of a word of the suite's own vocabulary (a status, outcome, cause, effect or field name of results.json, or a JSON literal): masking it would garble the verdict the reports state";
  if (/^[\d\s.:+\-TZ]+$/i.test(secret) && secret.length < MIN_NUMERIC_SECRET_LENGTH)
    return `only digits and separators, shorter than ${MIN_NUMERIC_SECRET_LENGTH} characters: it may spell a number, date or time the reports hold`;
  return undefined;
}

/**
 * Whether a secret the redactor holds would mask part of a word of the suite's vocabulary, or of
 * any other text the suite writes in its own words (`ownTexts`). A --secret is refused early by
 * secretRuleBroken; this covers every secret: a --secret within a check id, a statement id, the
 * headline, an exit sentence or junit.xml's markup (`rpc.`, `4.2.r3`, `testcase`, `exit 1`), and
 * what is registered from a URL's credential parts, a header's tokens or the environment
 * (`?apikey=true` would turn every `true` of results.json into `***`). Tried on the texts
 * themselves, so no rule of the redactor is written twice.
 */
export function garblesVocabulary(redactor: Pick<Redactor, 'text' | 'size'>, ownTexts: () => readonly string[] = () => []): boolean {
  if (redactor.size === 0) return false;
  if (suiteVocabulary().some((w) => redactor.text(w) !== w)) return true;
  // The rest of the suite's own words (own-words.ts: check ids, statement ids, headlines, the exit
  // sentences, junit.xml's markup, the badge), rendered only when a secret is registered at all.
  return ownTexts().some((t) => redactor.text(t) !== t);
}

/** What a run says when garblesVocabulary: the kinds of places to look, never the value. */
export const GARBLED_VOCABULARY =
  "a credential given (a --secret, a URL's key, user or password, a header's token, or a secret in the environment) is part of a word of the suite's own vocabulary or text (a status, outcome, cause, effect or field name of results.json, a JSON literal, a check id, a statement id, the headline, an exit sentence, or the markup of junit.xml or the badge): masked in every report, it would garble the verdict they state; use a longer credential (value not shown)";
