#!/usr/bin/env node
// Repository tool, not shipped: runs a TypeScript entry point from source through tsx's require
// hook, in this process (no child to orphan). `npm run conformance`, `reference`, `docs`,
// `bench` and `build:contracts` use it; the package's commands run dist/ instead (bin/start.js).
'use strict';
// First, before anything else loads: an unsupported Node is one line and exit 2 (bin/start.js).
require('./start');
const path = require('node:path');
const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: run-ts.js <file.ts> [args...]\n');
  process.exit(2);
}
require('./start').stopWithParentUnderNpm();
require('tsx/cjs/api').register();
// The entry is a path inside this package (as npm scripts give it), whatever the working directory.
const file = path.resolve(__dirname, '..', entry);
process.argv.splice(1, 2, file);
require(file);
