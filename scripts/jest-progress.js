// A jest reporter that appends, as they happen, the test files started and finished and the run's
// end to the file JEST_PROGRESS_FILE names (one tab-separated line each, with the time): what
// scripts/bounded-jest.js reads to name the files still running when it stops a run.
'use strict';
const { appendFileSync } = require('node:fs');

class JestProgress {
  constructor() {
    this.file = process.env.JEST_PROGRESS_FILE;
  }
  note(what, test = '') {
    if (!this.file) return;
    try {
      appendFileSync(this.file, `${what}\t${Date.now()}\t${test}\n`);
    } catch (err) {
      // The run goes on; only the names of files still running would be missing if it is stopped.
      process.stderr.write(`jest-progress: cannot write ${this.file} (${err.code ?? err.message}): files still running will not be named\n`);
      this.file = undefined;
    }
  }
  onTestStart(test) {
    this.note('start', test.path);
  }
  onTestResult(test) {
    this.note('done', test.path);
  }
  onRunComplete() {
    this.note('complete');
  }
  getLastError() {
    return undefined;
  }
}

module.exports = JestProgress;
