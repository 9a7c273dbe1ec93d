#!/usr/bin/env node
// Runs a TypeScript entry point through tsx's loader, so the package works from a clean
// checkout (and with npx) without a build step.
'use strict';
const path = require('node:path');
require('tsx/cjs/api').register();
const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: run-ts.js <file.ts> [args...]\n');
  process.exit(2);
}
process.argv.splice(1, 2, path.resolve(entry));
require(path.resolve(entry));
