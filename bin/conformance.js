#!/usr/bin/env node
'use strict';
// The `conformance` command: always the prebuilt dist/ (see bin/start.js for the rule).
require('./start').startBuilt('src/cli/run');
