import { fail } from './check';
import type { HttpResult } from './http';
import { validate, type SchemaName } from './schemas';

/** Short, stable rendering of a value for failure messages. */
export function show(v: unknown, max = 200): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : v === undefined ? 'undefined' : typeof v === 'bigint' ? `${v}n` : JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

export function expectEqual<T>(actual: unknown, expected: T, what: string, section?: string): asserts actual is T {
  if (!Object.is(actual, expected) && JSON.stringify(actual) !== JSON.stringify(expected)) {
    fail(`${what}: expected ${show(expected)}, got ${show(actual)}`, { expected, actual, section });
  }
}

/** Validate against a schema from schemas/ (the one source of truth for shapes). */
export function expectSchema(name: SchemaName, value: unknown, what: string, section?: string): void {
  const verdict = validate(name, value);
  if (!verdict.valid) fail(`${what} does not match schema "${name}": ${verdict.errors.slice(0, 5).join('; ')}`, { expected: `schema ${name}`, actual: value, section });
}

/** HTTP status and an application/json media type (parameters such as charset are fine). */
export function expectJsonResponse(res: HttpResult, status: number, what: string, section?: string): void {
  if (res.status !== status) fail(`${what}: expected HTTP ${status}, got ${res.status}`, { expected: status, actual: res.status, section });
  if (res.contentType !== 'application/json') {
    fail(`${what}: expected Content-Type application/json, got ${show(res.headers['content-type'] ?? '(none)')}`, { expected: 'application/json', actual: res.headers['content-type'] ?? null, section });
  }
}
