import { cutBytes } from './json';
import type { Redactor } from './redact';

/**
 * An exchange is one HTTP request/response pair, kept as readable data (hive style). Its bodies
 * are kept up to this size (after redaction), enough to read any answer the spec describes:
 * a run's reports stay small whatever a target sends.
 */
export const BODY_CAP_BYTES = 8 * 1024;

export interface ExchangeRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ExchangeResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  truncated?: boolean;
}

export interface Exchange {
  request: ExchangeRequest;
  response?: ExchangeResponse;
  /** Transport failure (timeout, refused, reset, body too large), instead of a response. */
  error?: string;
  durationMs: number;
  curl: string;
}

/** A body as kept in a transcript: cut at `cap` bytes with its whole size stated (redact it first). */
export function capBody(body: string, cap = BODY_CAP_BYTES): { body: string; truncated: boolean } {
  const { text, truncated } = cutBytes(body, cap);
  return { body: text, truncated };
}

/**
 * How much past the transcript's cut a body is redacted: more than the start of a form the
 * Redactor finds on its own (256 characters, then as far as the text agrees with the form), so a
 * credential straddling the cut is masked whole before the cut.
 */
export const REDACT_MARGIN_CHARS = 16 * 1024;

/**
 * A response body as the transcript keeps it: redacted, then cut (capBody). Only its head is
 * redacted when the body is long, so a 16 MiB answer costs the redactor what a short one does;
 * when redaction shortened the head so much that the cut could reach its unredacted edge, the
 * whole body is redacted instead.
 */
export function recordedBody(text: string, redactor: Redactor, cap = BODY_CAP_BYTES): { body: string; truncated: boolean } {
  const window = cap + 2 * REDACT_MARGIN_CHARS;
  if (text.length <= window) return capBody(redactor.text(text), cap);
  return (
    recordedHead(text.slice(0, window), Buffer.byteLength(text), redactor, cap) ?? statedSize(capBody(redactor.text(text), cap).body, Buffer.byteLength(text))
  );
}

/**
 * recordedBody of a text known by its head alone (`cap` + 2 × REDACT_MARGIN_CHARS characters
 * or more) and its whole size in bytes; undefined when redaction shortened the head so much
 * that the cut could reach its unredacted edge (the whole text must then be redacted).
 */
export function recordedHead(head: string, wholeBytes: number, redactor: Redactor, cap = BODY_CAP_BYTES): { body: string; truncated: boolean } | undefined {
  const redacted = redactor.text(head);
  return redacted.length > cap + REDACT_MARGIN_CHARS ? statedSize(capBody(redacted, cap).body, wholeBytes) : undefined;
}

/** A cut body stating the whole text's size, not its head's. */
function statedSize(body: string, bytes: number): { body: string; truncated: boolean } {
  return { body: body.replace(/ \[cut: [\d,]+ bytes in all\]$/, ` [cut: ${bytes.toLocaleString('en-US')} bytes in all]`), truncated: true };
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A curl line that reproduces the request (already redacted by the caller). Where the redacted
 * URL or a header carried a secret, `vars` supplies a shell variable word instead (see
 * Redactor.curlVariables), so the line still works once those variables are exported.
 */
export function curlLine(req: ExchangeRequest, vars?: { url?: string; headers: Record<string, string> }): string {
  const parts = ['curl', '-sS', '-i'];
  if (req.method !== 'GET') parts.push('-X', req.method);
  for (const [name, value] of Object.entries(req.headers)) parts.push('-H', vars?.headers[name] ?? shellQuote(`${name}: ${value}`));
  if (req.body !== undefined) parts.push('--data-raw', shellQuote(req.body));
  parts.push(vars?.url ?? shellQuote(req.url));
  return parts.join(' ');
}

/** Collects the exchanges of one check. */
export class Transcript {
  readonly exchanges: Exchange[] = [];
  add(exchange: Exchange): void {
    this.exchanges.push(exchange);
  }
}
