#!/usr/bin/env node
'use strict';
require('./load').load('src/cli/main').runCli();
