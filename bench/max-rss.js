// Preloaded (node --require) into a child run by bench/bench.ts: at exit, writes the process's
// peak resident set size in KiB to the file named by MAX_RSS_FILE, and its CPU time (user +
// system) in microseconds to the one named by CPU_TIME_FILE (a measure a busy machine does not inflate).
'use strict';
const fs = require('node:fs');
process.on('exit', () => {
  const usage = process.resourceUsage();
  if (process.env.MAX_RSS_FILE) fs.writeFileSync(process.env.MAX_RSS_FILE, String(usage.maxRSS));
  if (process.env.CPU_TIME_FILE) fs.writeFileSync(process.env.CPU_TIME_FILE, String(usage.userCPUTime + usage.systemCPUTime));
});
