import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8's full garbage collection as a function, or undefined where it cannot be had. Node gives
 * it only to a process started with --expose-gc; the flag set now still installs it in a new
 * context, whose `gc` collects the whole heap of the process. The flag is cleared again at once,
 * so no other context (a test runner's) gets a `gc` it did not ask for.
 */
export function fullCollection(): (() => void) | undefined {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as () => void;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
