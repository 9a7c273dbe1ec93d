#!/usr/bin/env node
'use strict';
// The `conformance-reference` command: always the prebuilt dist/ (see bin/start.js for the rule).
const { ROOT, startBuilt } = require('./start');
const args = process.argv.slice(2);
if (!args.includes('--help') && !args.includes('-h')) {
  // anvil is an optional dependency (Linux x64 only): say what is missing in one line (exit 2).
  let located;
  try {
    const { ANVIL_PACKAGE, locateAnvil } = require(`${ROOT}/dist/src/reference/anvil-binary.js`);
    located = locateAnvil({ version: require(`${ROOT}/package.json`).optionalDependencies?.[ANVIL_PACKAGE] });
  } catch {
    located = { found: true }; // no dist/: startBuilt says so
  }
  if (!located.found) {
    process.stderr.write(`reference: ${located.problem}\n`);
    process.exit(2);
  }
}
startBuilt('src/reference/main');
