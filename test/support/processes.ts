// The process table, read from /proc: which processes a test started, and whether they are gone.
import { readdirSync, readFileSync } from 'node:fs';

/** Running (not zombie) processes by pid, with their parent, from /proc. */
export function processTable(): Map<number, { ppid: number; state: string }> {
  const table = new Map<number, { ppid: number; state: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(entry), { ppid: Number(ppid), state });
    } catch {
      // gone while reading
    }
  }
  return table;
}

export function descendants(root: number): number[] {
  const table = processTable();
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    for (const [child, { ppid }] of table)
      if (ppid === pid && !out.includes(child)) {
        out.push(child);
        queue.push(child);
      }
  }
  return out;
}

export const running = (pid: number) => {
  const p = processTable().get(pid);
  return p !== undefined && p.state !== 'Z';
};

/** Waits (bounded) until none of `pids` runs; returns those still running. */
export async function gone(pids: number[], withinMs: number): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  let left = pids.filter(running);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = pids.filter(running);
  }
  return left;
}

/** SIGKILL to each of `pids` that still runs: a test's last word, so a failed one leaves nothing behind. */
export function killAll(pids: Array<number | undefined>): void {
  for (const pid of pids)
    try {
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
}
