#!/usr/bin/env node
'use strict';
// The `conformance-reference` command: always the prebuilt dist/ (see bin/start.js for the rule).
require('./start').startBuilt('src/reference/main');
