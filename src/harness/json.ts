/** A JSON object (not null, not an array): what a check must see before reading members. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Results must survive JSON.stringify in every reporter: bigints (nonces, block numbers, wei)
 * become decimal strings, exact at any size and readable beside the message that quotes them.
 */
export function jsonSafe(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonSafe(x)]));
  return v;
}

/** Short, stable rendering of a value for messages. */
export function show(v: unknown, max = 200): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : v === undefined ? 'undefined' : typeof v === 'bigint' ? `${v}n` : JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

export function parseJson(text: string): { json?: unknown; jsonError?: string } {
  try {
    return { json: JSON.parse(text) };
  } catch (err) {
    return { jsonError: (err as Error).message };
  }
}
