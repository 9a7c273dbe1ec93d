// Everything the Action writes, in one place: its log lines (workflow commands, the suite's
// forwarded output), the step summary and $GITHUB_OUTPUT. Every write passes through the suite's
// own egress gate, registered with exactly what the suite is given (its environment and command
// line) and the `secrets` input split on both separators: masked, or withheld when a secret would
// still show. One write bypasses it, by design: `::add-mask::` lines carry the secret so that the
// runner can hide it; the runner consumes them and never shows them, and the gate would mask the
// very value they register.
import path from 'node:path';
import { Egress, type OutStream } from '../cli/egress';

/** A forwarded line longer than this is passed on in pieces (a secret cut at the edge is still a hit for the gate). */
const MAX_LINE = 64 * 1024;

/** The Action's `secrets` input as the suite reads SECRETS: each part between commas and newlines. */
const secretParts = (text: string): string[] =>
  text
    .split(/[,\r\n]+/)
    .map((p) => p.trim())
    .filter(Boolean);

/** A forwarded stream of the suite: give it each chunk, and end it when the stream closes. */
export interface Forwarded {
  take(chunk: string): void;
  end(): void;
}

export class Output {
  private readonly gate: Egress;
  /** Set once the gate refused a write: what was withheld, never what it held. */
  readonly withheld: string[] = [];

  /** The gate for a suite run with `suiteArgs` and `suiteEnv`, and the `secrets` input; writing to the real `out` and `err`. */
  constructor(
    suiteArgs: readonly string[],
    suiteEnv: NodeJS.ProcessEnv,
    secrets: string,
    private readonly out: OutStream = process.stdout,
    private readonly err: OutStream = process.stderr,
  ) {
    // A refusal is said by name (a file, "a line for stdout"), never with what it held.
    this.gate = Egress.forRun(suiteArgs, suiteEnv, (line) => this.err.write(line));
    for (const part of secretParts(secrets)) this.gate.redactor.add(part);
  }

  /** A `::add-mask::` line: it must carry the secret, the runner never shows it. Written outside the gate. */
  mask(line: string): void {
    this.out.write(line);
  }

  /** `text` as it may leave for `where`, or undefined when withheld. */
  private pass(text: string, where: string): string | undefined {
    const passed = this.gate.pass(text, where);
    if (passed === undefined) this.withheld.push(where);
    return passed;
  }

  /**
   * One of the Action's own log lines (a workflow command). The gate's console stream would make
   * `::error` inert, so the line is masked with `pass` and written here, still through the gate.
   */
  log(text: string): void {
    const passed = this.pass(text, 'a line of the step log');
    if (passed !== undefined) this.out.write(passed);
  }

  /** Append to a runner file ($GITHUB_STEP_SUMMARY, $GITHUB_OUTPUT) through the gate, never through a link; `label` names it when withheld. */
  append(file: string, text: string, label = path.basename(file)): void {
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
   * around it, such as a log group, land in order).
   */
  forward(where: 'stdout' | 'stderr', onLine: (line: string) => void = () => {}, beforeLine: (line: string) => void = () => {}): Forwarded {
    const stream = this.gate.stream(where === 'stderr' ? this.err : this.out, where);
    let partial = '';
    const flush = (text: string) => {
      const before = this.gate.refused.length;
      stream.write(text);
      if (this.gate.refused.length > before) this.withheld.push(`a line of the suite's ${where}`);
    };
    return {
      take: (chunk) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
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
