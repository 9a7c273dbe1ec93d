#!/usr/bin/env node
'use strict';
require('tsx/cjs/api').register();
require('../src/cli/main.ts');
