/**
 * A run's hold on its report directory, taken before anything is judged: the folder is made, and a
 * lock file is created in it exclusively (O_EXCL, never through a link) with this process's id.
 * That one write is the probe: a folder the run cannot write in is said at once, with its path and
 * why (exit 2), instead of after a whole run that then cannot keep its reports. A second run into
 * the same folder finds the lock and is refused, naming the run that holds it; a lock left by a run
 * that is no longer running (killed, the machine restarted) is taken over, and that is said.
 */
import { closeSync, constants, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { makeDirs } from './report-files';

/** The lock's name in the report directory: hidden, and removed when the run ends. */
export const LOCK_FILE = '.conformance-run.lock';

/** A lock file without an owner younger than this is a run taking it, not one that died doing so. */
const FRESH_MS = 10_000;

/** Why the run cannot have the folder; its message is one line for `conformance: …`. */
export class ReportDirError extends Error {
  override name = 'ReportDirError';
}

interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
}

/** Words for a file system's refusal to create a file. */
function whyNotWritable(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied (the folder is read-only for this user)';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EDQUOT':
      return 'the disk quota is exhausted';
    default:
      return `the folder does not take new files (${err.code ?? err.message})`;
  }
}

/** The locks this process holds (a run in process, as the jest adapter and tests make): file → the owner written. */
const heldHere = new Map<string, LockOwner>();

/** When a process started, in ms since the epoch, from Linux's /proc (undefined elsewhere or when it cannot be read). */
function startedAtMs(pid: number): number | undefined {
  try {
    // Field 22 of /proc/<pid>/stat, after the command name in parentheses (which may hold spaces).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    // Linux reports start times in clock ticks of 1/100 s (USER_HZ) on every architecture it runs on.
    return Number.isFinite(ticks) && Number.isFinite(boot) ? boot * 1000 + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the run that wrote the lock still runs on this machine: this process only if it holds
 * that very lock; another process if a signal 0 reaches it (or it exists but is not ours) and it
 * did not start after the lock was written (a process id reused since, as CI containers do).
 */
function stillRunning(owner: LockOwner, file: string): boolean {
  if (owner.pid === process.pid) return heldHere.get(path.resolve(file))?.startedAt === owner.startedAt;
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = startedAtMs(owner.pid);
  const locked = Date.parse(owner.startedAt);
  // A second of slack: the two clocks are read differently.
  return started === undefined || !Number.isFinite(locked) || started <= locked + 1000;
}

function ownerOf(file: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockOwner>;
    if (Number.isSafeInteger(owner.pid) && owner.pid! > 0 && typeof owner.host === 'string') return owner as LockOwner;
  } catch {
    // Unreadable or half written: not a run's lock (see below)
  }
  return undefined;
}

export interface ReportLock {
  readonly file: string;
  /** Remove the lock if it is still this run's (idempotent). */
  release(): void;
}

/**
 * Take `dir` for this run: made if missing, probed by creating the lock file. Throws ReportDirError
 * with the path and the reason when it cannot be written or another run holds it; `say` hears the
 * take-over of a stale lock.
 */
export function lockReportDir(dir: string, say: (line: string) => void = () => {}): ReportLock {
  const flag = '--report-dir (or REPORT_DIR)';
  try {
    makeDirs(dir);
  } catch (err) {
    throw new ReportDirError(`${flag}: cannot create ${dir}: ${(err as Error).message}`);
  }
  const file = path.join(dir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  // Two attempts: the second after a stale lock was removed.
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code !== 'EEXIST') throw new ReportDirError(`${flag}: cannot write in ${dir}: ${whyNotWritable(e)}`);
      const owner = ownerOf(file);
      const here = owner?.host === me.host;
      if (owner && (!here || stillRunning(owner, file))) {
        const who = `pid ${owner.pid}${here ? '' : ` on ${owner.host}`}, since ${owner.startedAt}`;
        throw new ReportDirError(
          `${flag}: another run (${who}) is writing its reports to ${dir}: wait for it to end, or give this run another --report-dir${here ? '' : ` (if no run is going there, remove ${file})`}`,
        );
      }
      // No owner yet may be a run between creating the file and writing its id: young, it is held.
      if (!owner && Date.now() - (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0) < FRESH_MS)
        throw new ReportDirError(`${flag}: another run is taking ${dir} at this moment: wait for it to end, or give this run another --report-dir`);
      if (attempt > 0) throw new ReportDirError(`${flag}: another run took ${dir} at the same moment: give this run another --report-dir`);
      try {
        unlinkSync(file);
      } catch (gone) {
        if ((gone as NodeJS.ErrnoException).code !== 'ENOENT')
          throw new ReportDirError(`${flag}: cannot remove a stale ${file}: ${whyNotWritable(gone as NodeJS.ErrnoException)}`);
      }
      say(
        owner
          ? `conformance: note: ${dir}: took over the lock of an earlier run (pid ${owner.pid}, since ${owner.startedAt}) that is no longer running\n`
          : `conformance: note: ${dir}: took over an unreadable lock file ${LOCK_FILE} (a run stopped while taking it)\n`,
      );
      continue;
    }
    try {
      writeSync(fd, `${JSON.stringify(me)}\n`);
    } catch (err) {
      closeSync(fd);
      unlinkSync(file);
      throw new ReportDirError(`${flag}: cannot write in ${dir}: ${whyNotWritable(err as NodeJS.ErrnoException)}`);
    }
    closeSync(fd);
    let held = true;
    heldHere.set(path.resolve(file), me);
    const release = () => {
      if (!held) return;
      held = false;
      heldHere.delete(path.resolve(file));
      process.off('exit', release);
      const owner = ownerOf(file);
      if (owner?.pid === me.pid && owner.startedAt === me.startedAt) {
        try {
          unlinkSync(file);
        } catch {
          // Already gone: nothing to release.
        }
      }
    };
    // A run that ends by process.exit (a second Ctrl-C) still leaves no lock behind.
    process.on('exit', release);
    return { file, release };
  }
  throw new ReportDirError(`${flag}: cannot take ${dir}`);
}
