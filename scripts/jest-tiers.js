#!/usr/bin/env node
// `npm test`'s jest: the main project on its workers (jest.config.ts), then the busy-core
// project (tests that keep a core busy, see jest.config.ts) one file at a time, beside nothing
// else. Arguments go to both runs (a path filter, -t, …); `--outputFile=<f>` with `--json` gets
// one document holding both runs' results, as a single jest run would write it. Exit 1 when
// either failed.
// Each tier is bounded in wall-clock time (scripts/bounded-jest.js): a tier that does not end
// fails with the test files still running named, well inside CI's own limit (5400 s), instead
// of holding CI until that limit with no log kept. JEST_TIER_LIMIT_S sets the bound of each tier.
'use strict';
const { spawnSync } = require('node:child_process');
const { readFileSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { runBounded } = require('./bounded-jest');

const args = process.argv.slice(2);
const outputAt = args.findIndex((a) => a.startsWith('--outputFile'));
const output = outputAt < 0 ? undefined : args[outputAt].includes('=') ? args[outputAt].split('=')[1] : args[outputAt + 1];
const rest = outputAt < 0 ? args : args.filter((_, i) => i !== outputAt && !(i === outputAt + 1 && !args[outputAt].includes('=')));
const jest = require.resolve('jest/bin/jest');

// The bounds: several times what each tier takes on an idle 2-core machine (main about 210 s
// on three workers, 415 s on two in a clean clone; busy-core 70 s); the two together leave 600 s of .ci/run's 2700 s npm test stage for the
// type check and the build, so a stopped tier names its files before the stage's own bound.
const raw = process.env.JEST_TIER_LIMIT_S;
const limitS = raw === undefined || raw === '' ? undefined : Number(raw);
if (limitS !== undefined && !(Number.isFinite(limitS) && limitS > 0)) {
  console.error(`jest-tiers: JEST_TIER_LIMIT_S must be a positive number of seconds, not ${JSON.stringify(raw)}`);
  process.exit(2);
}
// Watching, listing or help are not runs to bound: jest as it is, in this process group (keys reach it).
if (rest.some((a) => /^--(watch|watchAll|listTests|help|showConfig)(=|$)/.test(a))) {
  const r = spawnSync(process.execPath, [jest, ...rest], {
    stdio: 'inherit',
    cwd: path.join(__dirname, '..'),
    env: { TS_NODE_TRANSPILE_ONLY: 'true', ...process.env },
  });
  process.exit(r.status ?? 1);
}
const tiers = [
  { name: 'main', args: ['--selectProjects', 'main'], limitS: limitS ?? 1500 },
  { name: 'busy-core', args: ['--selectProjects', 'busy-core', '--runInBand'], limitS: limitS ?? 600 },
];

async function main() {
  const docs = [];
  let failed = false;
  for (const [i, tier] of tiers.entries()) {
    const file = output && `${output}.${i}`;
    const r = await runBounded({
      label: `jest-tiers: the ${tier.name} tier`,
      args: [jest, ...tier.args, '--passWithNoTests', ...rest, ...(file ? [`--outputFile=${file}`] : [])],
      limitMs: tier.limitS * 1000,
      exitGraceMs: 30_000,
      cwd: path.join(__dirname, '..'),
      // jest loads jest.config.ts through ts-node; `npm test` has type-checked it already (tsc).
      env: { TS_NODE_TRANSPILE_ONLY: 'true', ...process.env },
    });
    if (r.status !== 0 || r.stopped) failed = true;
    if (file) {
      try {
        docs.push(JSON.parse(readFileSync(file, 'utf8')));
      } catch {
        failed = true;
      }
      rmSync(file, { force: true });
    }
    if (r.interrupted) process.kill(process.pid, r.interrupted); // no later tier after a Ctrl-C
    if (r.signal && !r.stopped) process.kill(process.pid, r.signal);
  }
  return { docs, failed };
}

void main().then(({ docs, failed }) => {
  if (output && docs.length) {
    const merged = { ...docs[0], testResults: docs.flatMap((d) => d.testResults), success: docs.every((d) => d.success) };
    for (const key of Object.keys(docs[0]))
      if (key.startsWith('num') && typeof docs[0][key] === 'number') merged[key] = docs.reduce((n, d) => n + (d[key] ?? 0), 0);
    merged.startTime = Math.min(...docs.map((d) => d.startTime));
    writeFileSync(output, JSON.stringify(merged));
  }
  process.exit(failed ? 1 : 0);
});
