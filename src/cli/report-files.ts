// The report folder as the gate writes to it: no write through a link, no stale file of an
// earlier run beside new results, and folders made one level at a time.
import { closeSync, constants, lstatSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/** Every file a run, --certify or compare of this suite writes: a previous run's copy is this suite's to remove. */
export const SUITE_FILES = ['results.json', 'junit.xml', 'summary.md', 'report.html', 'certificate.json', 'predicate.json', 'badge.svg'] as const;

/**
 * Write `name` in `dir`, a rendering of the sealed run document (its outside text masked when
 * sealed; the suite's own words are never masked): into a new temporary file of that folder
 * (created exclusively, never following a link), then renamed over the name, so a link planted
 * there is replaced, not followed. Returns the path; throws when the file cannot be written.
 */
export function writeReportFile(dir: string, name: string, body: string): string {
  const file = path.join(dir, name);
  makeDirs(dir);
  const tmp = path.join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
  try {
    try {
      writeWhole(fd, Buffer.from(body, 'utf8'));
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    // A file cut short (a full disk) never takes the name, and its temporary copy is not left behind.
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw err;
  }
  return file;
}

/** Every byte of `bytes` to `fd`: a write may take fewer than it is given (a full disk), so the rest is written until none is left, or it throws. */
function writeWhole(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length;) {
    const wrote = writeSync(fd, bytes, at, bytes.length - at);
    if (wrote <= 0) throw Object.assign(new Error(`no space left to write (${at} of ${bytes.length} bytes written)`), { code: 'ENOSPC' });
    at += wrote;
  }
}

/**
 * Remove from `dir` the files a previous run of this suite left (SUITE_FILES) that this run will
 * not write again, so an old badge or certificate never stands beside new results. Anything else
 * in the folder is left alone; a link is removed, never followed.
 */
export function clearStale(dir: string, writing: readonly string[]): void {
  for (const name of SUITE_FILES) {
    if (writing.includes(name)) continue;
    const file = path.join(dir, name);
    try {
      if (!lstatSync(file).isDirectory()) unlinkSync(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/** Append `body` to `file` (created if need be), never through a link. */
export function appendNoFollow(file: string, body: string): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), 0o644);
  try {
    writeWhole(fd, Buffer.from(body, 'utf8'));
  } finally {
    closeSync(fd);
  }
}

/** Directories a path may have above it: more is not a report directory. */
const MAX_DEPTH = 256;

/**
 * `mkdir -p` one level at a time: Node's recursive mkdirSync loops forever under /proc (a
 * --report-dir of /proc/x made the run spin at full CPU), so the missing directories are found
 * by walking up to one that exists and made top down, each failure naming the level it met.
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let at = path.resolve(dir), depth = 0; depth < MAX_DEPTH; depth++) {
    try {
      if (!statSync(at).isDirectory()) throw new Error(`${at} is not a directory`);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      missing.push(at);
      const up = path.dirname(at);
      if (up === at) break;
      at = up;
    }
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
