/**
 * The one way out: every byte the suite writes leaves through an Egress, which knows every
 * credential of the run (from the raw command line and environment, then the configuration).
 * Report files render the run document masked when sealed (mask-result.ts) and are written as
 * rendered; console lines and appended outputs are masked, and one that cannot be is withheld,
 * said on stderr, and the run exits non-zero.
 */
import { appendNoFollow, clearStale, writeReportFile } from './report-files';
import { Redactor } from '../harness/redact';
import { looksLikeKey } from '../harness/url-parts';
import { keyMaterial } from './signing-keys';
import { isMnemonic } from './keys';
import type { RunConfig } from './config';
import { OPTIONS, rawValues } from './options';
import { forConsole, type Io, type OutStream } from './inert-text';

export type { Io, OutStream } from './inert-text';

/** Names of environment variables that hold credentials whatever flag they belong to (CI tokens, the Action's inputs). */
const SECRET_NAME = /(secret|token|password|passwd|credential|api_?key|private_?key|sign_?key)/i;
const URL_FLAGS = new Set(['base-url', 'rpc-url', 'openapi']);
const HEADER_FLAGS = new Set(['header', 'rest-header', 'rpc-header']);
const KEY_FLAGS = new Set(['signer-key', 'sign-key']);
const envOf = new Map(OPTIONS.map(([flag, env]) => [flag, env]));
const OPTION_ENVS = new Set<string>(OPTIONS.map(([, env]) => env).filter(Boolean));

export class Egress {
  /** The names of the files and streams a write to was refused (never what would have been written). */
  readonly refused: string[] = [];

  constructor(
    readonly redactor: Redactor = new Redactor(),
    /** Where a refusal is said: the unwrapped stderr. */
    private readonly complain: (line: string) => void = () => {},
  ) {}

  /** An Egress for this command line and environment, its secrets registered before anything is parsed. */
  static forRun(argv: readonly string[], env: NodeJS.ProcessEnv, complain?: (line: string) => void): Egress {
    return new Egress(new Redactor(), complain).registerRaw(argv, env);
  }

  /** A value that may be a credential, whatever its shape: whole, and each part between separators. */
  private addLoose(value: string | undefined): void {
    if (!value?.trim()) return;
    const r = this.redactor;
    r.add(value.trim());
    // Action inputs and SECRETS may mix commas and newlines: each part is a secret of its own.
    for (const part of value.split(/[,\r\n]+/)) r.add(part.trim());
    if (value.includes('-----BEGIN')) for (const line of value.split(/\r?\n/)) if (line.trim().length >= 16 && !line.includes('-----')) r.add(line.trim());
  }

  /** The secrets of a raw command line and environment (flags, variables, what .env filled in, the Action's inputs), before parsing. */
  registerRaw(argv: readonly string[], env: NodeJS.ProcessEnv): this {
    for (const [flag] of OPTIONS) {
      const name = envOf.get(flag);
      const values = [...rawValues(argv, flag), ...(name && env[name] ? [env[name]!] : [])];
      for (const v of values) {
        if (URL_FLAGS.has(flag)) this.redactor.addUrl(v);
        else if (HEADER_FLAGS.has(flag)) {
          for (const line of v.split(/\r?\n/)) {
            const colon = line.indexOf(':');
            if (colon > 0) this.redactor.addHeaders({ [line.slice(0, colon).trim()]: line.slice(colon + 1).trim() });
            else for (const w of line.split(/[\s,;=]+/)) if (looksLikeKey(w)) this.redactor.add(w);
          }
        } else if (flag === 'secret') this.addLoose(v);
        else if (KEY_FLAGS.has(flag) && (v.includes('-----BEGIN') || looksLikeKey(v.trim()) || isMnemonic(v))) this.addLoose(v);
      }
    }
    // Other variables named as credentials (a CI token, .env): their key-like parts only, so that a
    // flag such as HAS_SECRET=true never turns the word "true" in a report into ***.
    for (const [name, value] of Object.entries(env)) {
      if (!SECRET_NAME.test(name) || /_FILE$/.test(name) || !value || OPTION_ENVS.has(name)) continue;
      if (value.includes('-----BEGIN')) this.addLoose(value);
      else for (const part of value.split(/[,\s]+/)) if (looksLikeKey(part)) this.redactor.add(part);
    }
    // A key pasted where a path was asked for is still a key.
    for (const [name, value] of Object.entries(env)) if (/_FILE$/.test(name) && value?.includes('-----BEGIN')) this.addLoose(value);
    return this;
  }

  /** Every secret of the parsed configuration, known before any request is made. */
  registerConfig(cfg: RunConfig): this {
    // Curl lines name the variables of the configuration (BASE_URL, RPC_URL) where a secret was.
    const r = this.redactor
      .add(cfg.signerKey)
      .addTarget({ urlVar: 'BASE_URL', url: cfg.baseUrl, headerVar: 'REST_HEADER', headers: cfg.restHeaders })
      .addTarget({ urlVar: 'RPC_URL', url: cfg.rpcUrl, headerVar: 'RPC_HEADER', headers: cfg.rpcHeaders });
    r.addUrl(cfg.openapi);
    for (const secret of cfg.secrets) this.addLoose(secret);
    for (const secret of cfg.signKey ? keyMaterial(cfg.signKey) : []) r.add(secret);
    return this;
  }

  private refuse(where: string): undefined {
    this.refused.push(where);
    this.complain(`conformance: ${where} was not written: it would still have carried a secret after masking\n`);
    return undefined;
  }

  /**
   * `text` as it may leave for `where`: masked, or undefined (the refusal recorded and said) when
   * it could not be masked, or when masking failed: whatever goes wrong in the gate, the text is withheld.
   */
  pass(text: string, where: string): string | undefined {
    try {
      const { text: masked, clean } = this.redactor.mask(text);
      return clean ? masked : this.refuse(where);
    } catch {
      return this.refuse(where);
    }
  }

  /** A console stream: every write made inert for a terminal and a CI log, masked, and withheld when it would still leak. */
  stream(target: OutStream, where: 'stdout' | 'stderr'): OutStream {
    return {
      isTTY: target.isTTY === true,
      write: (chunk: string | Uint8Array) => {
        const text = this.pass(forConsole(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')), `a line for ${where}`);
        return text === undefined ? true : target.write(text);
      },
    };
  }

  io(io: Io): Io {
    return { out: this.stream(io.out, 'stdout'), err: this.stream(io.err, 'stderr') };
  }

  /** Write `name` in `dir` as rendered, never through a link (report-files.ts writeReportFile). */
  writeFile(dir: string, name: string, body: string): string {
    return writeReportFile(dir, name, body);
  }

  /** Append to a file someone else owns (the Action's $GITHUB_STEP_SUMMARY, $GITHUB_OUTPUT), through the gate and never through a link. */
  appendFile(file: string, text: string): void {
    const body = this.pass(text, file);
    if (body === undefined) throw new Error(`${file}: not written: it would still have carried a secret`);
    appendNoFollow(file, body);
  }

  /** Remove what an earlier run of this suite left in `dir` that this one does not write (report-files.ts clearStale). */
  clearStale(dir: string, writing: readonly string[]): void {
    clearStale(dir, writing);
  }
}
