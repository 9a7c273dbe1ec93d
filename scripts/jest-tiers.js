#!/usr/bin/env node
// `npm test`'s jest: the main project on both workers, then the busy-core project (tests that
// keep a core busy, see jest.config.ts) one file at a time, beside nothing else. Arguments go
// to both runs (a path filter, -t, …); `--outputFile=<f>` with `--json` gets one document
// holding both runs' results, as a single jest run would write it. Exit 1 when either failed.
'use strict';
const { spawnSync } = require('node:child_process');
const { readFileSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
const outputAt = args.findIndex((a) => a.startsWith('--outputFile'));
const output = outputAt < 0 ? undefined : args[outputAt].includes('=') ? args[outputAt].split('=')[1] : args[outputAt + 1];
const rest = outputAt < 0 ? args : args.filter((_, i) => i !== outputAt && !(i === outputAt + 1 && !args[outputAt].includes('=')));
const jest = require.resolve('jest/bin/jest');

const tiers = [
  ['--selectProjects', 'main'],
  ['--selectProjects', 'busy-core', '--runInBand'],
];
const docs = [];
let failed = false;
tiers.forEach((tier, i) => {
  const file = output && `${output}.${i}`;
  const r = spawnSync(process.execPath, [jest, ...tier, '--passWithNoTests', ...rest, ...(file ? [`--outputFile=${file}`] : [])], {
    stdio: 'inherit',
    cwd: path.join(__dirname, '..'),
    // jest loads jest.config.ts through ts-node; `npm test` has type-checked it already (tsc).
    env: { TS_NODE_TRANSPILE_ONLY: 'true', ...process.env },
  });
  if (r.status !== 0) failed = true;
  if (file) {
    try {
      docs.push(JSON.parse(readFileSync(file, 'utf8')));
    } catch {
      failed = true;
    }
    rmSync(file, { force: true });
  }
  if (r.signal) process.kill(process.pid, r.signal);
});

if (output && docs.length) {
  const merged = { ...docs[0], testResults: docs.flatMap((d) => d.testResults), success: docs.every((d) => d.success) };
  for (const key of Object.keys(docs[0]))
    if (key.startsWith('num') && typeof docs[0][key] === 'number') merged[key] = docs.reduce((n, d) => n + (d[key] ?? 0), 0);
  merged.startTime = Math.min(...docs.map((d) => d.startTime));
  writeFileSync(output, JSON.stringify(merged));
}
process.exit(failed ? 1 : 0);
