// Preloaded (node --require) into a child run by bench/bench.ts: at exit, writes the process's
// peak resident set size in KiB to the file named by MAX_RSS_FILE.
'use strict';
const fs = require('node:fs');
process.on('exit', () => {
  if (process.env.MAX_RSS_FILE) fs.writeFileSync(process.env.MAX_RSS_FILE, String(process.resourceUsage().maxRSS));
});
