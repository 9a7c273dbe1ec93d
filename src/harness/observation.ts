// What a failure shows as expected and actual: a typed, capped value. A reader gets a kind it can
// render (a quantity, a status, a media type, a pointer) or a short preview of text with its full
// size, never a target's answer whole: results.json and every report stay small and plain.
import type { Redactor } from './redact';

/** How results keep a value (masked, cut at their cap): result.ts's keptValue, passed in so neither imports the other. */
export type Keep = (v: unknown, redactor: Redactor) => unknown;

/** The most characters of a text preview: a mismatch reads in one line or two. */
export const PREVIEW_CHARS = 240;
/** The longest hex kept as a quantity (a 32-byte hash, 0x + 64 digits); longer hex (code, data) is text. */
const HEX_MAX_CHARS = 66;
/** The longest string classified at all (a media type with its parameters); longer ones are text. */
const MEDIA_TYPE_MAX_CHARS = 120;

export type Observation =
  | { kind: 'hex'; value: string }
  | { kind: 'integer'; value: string }
  | { kind: 'http-status'; value: number }
  | { kind: 'media-type'; value: string }
  | { kind: 'json-pointer'; value: string }
  /** `bytes`: the UTF-8 size of the whole text (for a value, of its JSON); the preview is its head. */
  | { kind: 'text'; preview: string; bytes: number };

const HEX = /^0x[0-9a-fA-F]*$/;
const HTTP_STATUS = /^HTTP ([1-5]\d\d)$/;
const MEDIA_TYPE = /^[a-z]+\/[a-z0-9.+-]+(\s*;\s*[a-z0-9-]+=[^;\s]+)*$/i;
const JSON_POINTER = /^(\/([^~/]|~[01])*)*$/;

/** Observations a check typed with `observed`: only these pass through as they are (a target's own {kind, value} is text). */
const TYPED_BY_A_CHECK = new WeakSet<Observation>();
const typed = (o: Observation): Observation => (TYPED_BY_A_CHECK.add(o), o);

/** Explicitly typed, where a plain value would read as text: a JSON pointer, a status held as a number. */
export const observed = {
  pointer: (value: string): Observation => typed(JSON_POINTER.test(value) ? { kind: 'json-pointer', value } : text(value)),
  httpStatus: (value: number): Observation => typed({ kind: 'http-status', value }),
};

const KINDS = new Set<string>(['hex', 'integer', 'http-status', 'media-type', 'json-pointer', 'text']);

/** An observation as results.json holds one (for rendering; what a check passes is trusted only when typed by `observed`). */
export function isObservation(v: unknown): v is Observation {
  return typeof v === 'object' && v !== null && KINDS.has(String((v as { kind?: unknown }).kind)) && ('value' in v || 'preview' in v);
}

/**
 * A failure's expected or actual value as results.json keeps it: a typed observation when the
 * value is one (an integer, a short hex quantity, "HTTP 503", a media type, or one a check typed
 * with `observed`), else a text preview of at most PREVIEW_CHARS characters, taken from the value
 * masked and cut as results keep values (keptValue), with its whole size. Undefined stays absent.
 */
export function observe(v: unknown, redactor: Redactor, keep: Keep): Observation | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'object' && v !== null && TYPED_BY_A_CHECK.has(v as Observation)) return redactor.value(v as Observation);
  if (typeof v === 'bigint' || (typeof v === 'number' && Number.isSafeInteger(v))) return { kind: 'integer', value: v.toString() };
  // A number beyond a double's range was read as ±Infinity (JSON would say null): shown as read.
  if (typeof v === 'number' && !Number.isFinite(v)) return text(String(v));
  if (typeof v === 'string') {
    // A masked value is no quantity any more: it reads as the text it has become.
    if (v.length <= MEDIA_TYPE_MAX_CHARS && redactor.text(v) === v) {
      if (HEX.test(v) && v.length <= HEX_MAX_CHARS) return { kind: 'hex', value: v };
      const status = HTTP_STATUS.exec(v);
      if (status) return { kind: 'http-status', value: Number(status[1]) };
      if (v.length <= MEDIA_TYPE_MAX_CHARS && MEDIA_TYPE.test(v)) return { kind: 'media-type', value: v };
    }
    return preview(keep(v, redactor), Buffer.byteLength(v));
  }
  const kept = keep(v, redactor);
  const json = typeof kept === 'string' ? kept : (JSON.stringify(kept) ?? String(kept));
  // A value larger than results keep was cut with its whole size stated (not counted again here).
  const cut = CUT_MARK.exec(json);
  return cut ? preview(json.slice(0, cut.index), Number(cut[1].replace(/,/g, ''))) : preview(json, Buffer.byteLength(json));
}

/** How keptValue (recordedBody) states the size of what it cut. */
const CUT_MARK = / \[cut: ([\d,]+) bytes in all\]$/;

function text(value: string): Observation {
  return preview(value, Buffer.byteLength(value));
}

function preview(kept: unknown, bytes: number): Observation {
  const s = typeof kept === 'string' ? kept : (JSON.stringify(kept) ?? '');
  let head = s.length > PREVIEW_CHARS ? s.slice(0, PREVIEW_CHARS) : s;
  // Never half a surrogate pair at the cut.
  if (head.length < s.length && /[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return { kind: 'text', preview: head, bytes: Math.max(bytes, Buffer.byteLength(head)) };
}

/** An observation in one line of words, for the reports: the value, or the preview with its size when cut. */
export function observationText(o: unknown): string {
  if (!isObservation(o)) return JSON.stringify(o) ?? '';
  switch (o.kind) {
    case 'http-status':
      return `HTTP ${o.value}`;
    case 'text':
      return Buffer.byteLength(o.preview) < o.bytes ? `${o.preview}… (${o.bytes} bytes)` : o.preview;
    default:
      return o.value;
  }
}
