// The order jest starts the test files in: longest first, so that the workers end together
// rather than one of them starting a minute-long file when the others are done. jest knows a
// file's duration only from an earlier run on this machine (its cache, keyed by the checkout's
// path); a clean clone, as CI runs, has none, and jest then goes by file size, which puts the
// fault catalogue's shards (five-line files running minutes of work) last: from a clean clone
// the main tier took 276 s, and 246 s longest first.
// A file's duration from jest's cache wins; else the one recorded in test/durations.json
// (`node scripts/jest-sequencer.js --record <jest --json output>` rewrites it); else none, as
// for a short file. The order is all this changes: a stale figure costs time, never a verdict.
'use strict';
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = path.join(__dirname, '..');
const RECORDED = path.join(ROOT, 'test/durations.json');
/** Files that take less than this are left to jest's rule: their order hardly matters. */
const MIN_RECORDED_S = 2;

const key = (file) => path.relative(ROOT, file).split(path.sep).join('/');

let recorded;
/** The recorded seconds of each test file, by its path from the checkout's root. */
function recordedSeconds() {
  if (!recorded) {
    try {
      recorded = JSON.parse(readFileSync(RECORDED, 'utf8')).seconds ?? {};
    } catch {
      recorded = {};
    }
  }
  return recorded;
}

class LongestFirst extends Sequencer {
  time(test) {
    const cached = super.time(test);
    if (cached !== undefined) return cached;
    const s = recordedSeconds()[key(test.path)];
    // Not recorded: a short file, or a new one (a run puts it in jest's cache). Zero rather than
    // none, as jest starts the files it has no figure for first.
    return typeof s === 'number' && Number.isFinite(s) ? s * 1000 : 0;
  }
}

/**
 * A test file's path from this checkout's root, for a path jest gave in this checkout or in
 * another clone (a clean clone's CI run): the part from a `test/` folder on that names a file
 * here; undefined when none does.
 */
function inThisCheckout(name) {
  const parts = name.split(/[\\/]/);
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] !== 'test') continue;
    const rel = parts.slice(i).join('/');
    if (existsSync(path.join(ROOT, rel))) return rel;
  }
  return undefined;
}

/** test/durations.json (or `to`) from a `jest --json` output: each file of at least MIN_RECORDED_S, in whole seconds. */
function recordInto(jestJson, to = RECORDED) {
  const doc = JSON.parse(readFileSync(jestJson, 'utf8'));
  let seconds = {};
  for (const r of doc.testResults) {
    const s = Math.round((r.endTime - r.startTime) / 1000);
    const file = inThisCheckout(r.name);
    if (s >= MIN_RECORDED_S && file) seconds[file] = s;
  }
  seconds = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => (a < b ? -1 : 1)));
  const note = 'Each test file of at least 2 s, as one run took it: the order jest starts them in (scripts/jest-sequencer.js).';
  writeFileSync(to, `${JSON.stringify({ note, seconds }, null, 2)}\n`);
  return Object.keys(seconds).length;
}

module.exports = LongestFirst;
module.exports.recordInto = recordInto;

if (require.main === module) {
  const [flag, file] = process.argv.slice(2);
  if (flag !== '--record' || !file) {
    process.stderr.write('usage: node scripts/jest-sequencer.js --record <jest --json output>\n');
    process.exit(2);
  }
  process.stdout.write(`test/durations.json: ${recordInto(file)} files\n`);
}
