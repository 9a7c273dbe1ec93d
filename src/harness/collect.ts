import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The process's full collection once obtained (null: not asked for yet). */
let obtained: (() => void) | undefined | null = null;

/**
 * V8's full garbage collection as a function, or undefined where it cannot be had. Node gives
 * it only to a process started with --expose-gc; the flag set now still installs it in a new
 * context, whose `gc` collects the whole heap of the process. The flag is cleared again at once,
 * so no other context (a test runner's) gets a `gc` it did not ask for. Obtained once per
 * process: each context made for it would hold its own globals.
 */
export function fullCollection(): (() => void) | undefined {
  if (obtained !== null) return obtained;
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return (obtained = own as () => void);
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as unknown;
    obtained = typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    obtained = undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return obtained;
}
