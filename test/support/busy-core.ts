// One core kept busy, as on a CI runner with another job on it: a child process spinning for a
// bounded time (it ends by itself whatever happens to the test), stopped by its pid.
import { spawn, type ChildProcess } from 'node:child_process';

/** The busy loop ends by itself after this long. */
export const BUSY_MS = 90_000;

export function busyCore(ms = BUSY_MS): ChildProcess {
  return spawn(process.execPath, ['-e', `const end = Date.now() + ${ms}; while (Date.now() < end) {}`], { stdio: 'ignore' });
}

export function stopBusy(child: ChildProcess): void {
  if (child.pid !== undefined && child.exitCode === null) child.kill('SIGKILL');
}

/** `work` with one core kept busy throughout. */
export async function withBusyCore<T>(work: () => Promise<T>): Promise<T> {
  const busy = busyCore();
  try {
    return await work();
  } finally {
    stopBusy(busy);
  }
}
