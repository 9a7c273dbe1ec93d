// YAML the suite ships (specs/*.yaml), parsed at a build's cost rather than a run's: loading the
// yaml package and parsing specs/rules.yaml take about 0.1 s of CPU at every run's start, while
// the embedded reference starts on the other core and its block clock runs from its first answer.
// bin/build.js keeps each file's parsed value as JSON, named by the SHA-256 of its text; a run
// uses it only when made from the very text it read, so the YAML stays the one source and a
// stale or missing build (a run from source, an edited spec) falls back to parsing it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Where a build keeps the parsed YAML: beside its src/ and suites/ (from source: a folder that does not exist). */
export const PARSED_YAML_DIR = path.join(__dirname, '..', '..', 'parsed-yaml');

/** The name a build gives the parsed value of `text`. */
export function parsedYamlName(text: string): string {
  return `${createHash('sha256').update(text).digest('hex')}.json`;
}

/** `text` parsed as YAML: the build's JSON of that very text when there is one, else the yaml package's parse. */
export function parseShippedYaml(text: string): unknown {
  try {
    return JSON.parse(readFileSync(path.join(PARSED_YAML_DIR, parsedYamlName(text)), 'utf8')) as unknown;
  } catch {
    // no build of this text (or not JSON): parsed below
  }
  return (require('yaml') as typeof import('yaml')).parse(text) as unknown;
}
