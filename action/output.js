'use strict';
// Everything the Action writes, in one place: its log lines (workflow commands, the suite's
// forwarded output), the step summary and $GITHUB_OUTPUT. Once the suite is built, every write
// passes through the suite's own egress gate (dist/src/cli/egress.js), registered with exactly
// what the suite is given (its environment and command line) and the `secrets` input split on
// both separators: masked, or withheld when a secret would still show. Two writes bypass it, by
// design:
//   - `::add-mask::` lines carry the secret so that the runner can hide it; the runner consumes
//     them and never shows them, and the gate would mask the very value they register;
//   - before dist/ exists (while building it, or when the inputs are refused first), the Action
//     writes only its own fixed text: messages that never quote an input's value; npm ci and the
//     build, whose output goes straight to the log, are run without the inputs in their environment.
const fs = require('node:fs');
const path = require('node:path');

const EGRESS = path.resolve(__dirname, '..', 'dist', 'src', 'cli', 'egress.js');
/** A forwarded line longer than this is passed on in pieces (a secret cut at the edge is still a hit for the gate). */
const MAX_LINE = 64 * 1024;

/** The Action's `secrets` input as the suite reads SECRETS: each part between commas and newlines. */
const secretParts = (text) =>
  String(text ?? '')
    .split(/[,\r\n]+/)
    .map((p) => p.trim())
    .filter(Boolean);

class Output {
  /**
   * @param out the real stdout; @param err the real stderr
   */
  constructor(out = process.stdout, err = process.stderr) {
    this.out = out;
    this.err = err;
    this.gate = undefined;
    /** Set once the gate refused a write: what was withheld, never what it held. */
    this.withheld = [];
  }

  /** Load the gate from the built suite (a no-op until dist/ exists, or once loaded). */
  open(suiteArgs, suiteEnv, secrets) {
    if (this.gate || !fs.existsSync(EGRESS)) return Boolean(this.gate);
    const { Egress } = require(EGRESS);
    // A refusal is said by name (a file, "a line for stdout"), never with what it held.
    this.gate = Egress.forRun(suiteArgs, suiteEnv, (line) => this.err.write(line));
    for (const part of secretParts(secrets)) this.gate.redactor.add(part);
    return true;
  }

  /** A `::add-mask::` line: it must carry the secret, the runner never shows it. Written before and outside the gate. */
  mask(line) {
    this.out.write(line);
  }

  /** `text` as it may leave for `where`, or undefined when withheld. Before the gate exists: the Action's own fixed text. */
  pass(text, where) {
    if (!this.gate) return text;
    const passed = this.gate.pass(text, where);
    if (passed === undefined) this.withheld.push(where);
    return passed;
  }

  /**
   * One of the Action's own log lines (a workflow command). The gate's console stream would make
   * `::error` inert, so the line is masked with `pass` and written here, still through the gate.
   */
  log(text) {
    const passed = this.pass(text, 'a line of the step log');
    if (passed !== undefined) this.out.write(passed);
  }

  /** Append to a runner file ($GITHUB_STEP_SUMMARY, $GITHUB_OUTPUT) through the gate, never through a link; `label` names it when withheld. */
  append(file, text, label = path.basename(file)) {
    if (!this.gate) {
      // Not built yet (the inputs were refused first): the Action's own fixed text, never through a link.
      const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0), 0o644);
      try {
        fs.writeSync(fd, text);
      } finally {
        fs.closeSync(fd);
      }
      return;
    }
    try {
      this.gate.appendFile(file, text);
    } catch (err) {
      // The gate removes nothing and says which file; a failure of the file system itself is not a refusal.
      if (!this.gate.refused.includes(file)) throw err;
      this.withheld.push(label);
    }
  }

  /**
   * A writer for the suite's forwarded output (stdout or stderr): whole lines through the gate's
   * console stream (it masks, and keeps the text inert), so no secret is split across two chunks.
   * `onLine` sees each line as written; `beforeLine` sees it just before (the Action's own commands
   * around it, such as a log group, land in order). Give it each chunk with `take`, and call `end()` when the stream closes.
   */
  forward(where, onLine = () => {}, beforeLine = () => {}) {
    const target = where === 'stderr' ? this.err : this.out;
    const stream = this.gate ? this.gate.stream(target, where) : target;
    let partial = '';
    const flush = (text) => {
      const before = this.gate ? this.gate.refused.length : 0;
      stream.write(text);
      if (this.gate && this.gate.refused.length > before) this.withheld.push(`a line of the suite's ${where}`);
    };
    return {
      take: (chunk) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop();
        for (const l of lines) {
          beforeLine(l);
          flush(l + '\n');
          onLine(l);
        }
        if (partial.length > MAX_LINE) {
          flush(partial);
          partial = '';
        }
      },
      end: () => {
        if (partial) {
          beforeLine(partial);
          flush(partial);
          onLine(partial);
        }
        partial = '';
      },
    };
  }
}

module.exports = { Output, secretParts };
