/**
 * Reading a file a user named (a certificate and the directory it covers, a key, an expectations
 * file, an OpenAPI document): only a regular file, and only up to a size bound. A FIFO would block
 * the read forever, a link to /dev/zero or /dev/urandom would read until memory ran out, a directory
 * or a socket is no file at all: each is one clear message instead.
 *
 * The file is opened without blocking (O_NONBLOCK: opening a FIFO with no writer would wait
 * forever) and what was opened is checked with fstat, so a name swapped for something else after
 * a look at it is still caught. A symbolic link is followed only to a regular file (a key mounted
 * as a Kubernetes secret is a link); a name that was no link when it was looked at is opened with
 * O_NOFOLLOW, so it cannot become one in between.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type Stats } from 'node:fs';

/** The named file is not a regular file, cannot be opened, or is larger than the bound: the one-line reason. */
export class UnreadableFile extends Error {
  override name = 'UnreadableFile';
  constructor(
    message: string,
    /** ENOENT, EACCES, …; `not-regular` or `too-large` for what this module refuses itself. */
    readonly code: string,
  ) {
    super(message);
  }
}

/** What a file that is not a regular file is, in words. */
function kindOf(s: Stats): string {
  if (s.isFIFO()) return 'a FIFO (named pipe)';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isSocket()) return 'a socket';
  if (s.isDirectory()) return 'a directory';
  return 'not a regular file';
}

function bytes(n: number): string {
  return n >= 1 << 20 ? `${+(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${+(n / 1024).toFixed(1)} KiB` : `${n} bytes`;
}

/**
 * The bytes of `file`, which must be a regular file (or a link to one) of at most `maxBytes`.
 * `what` names it in a refusal ("--key k.pem", "certificate.json"). Throws UnreadableFile.
 */
export function readRegularFile(file: string, maxBytes: number, what: string = file): Buffer {
  let link: boolean;
  try {
    link = lstatSync(file).isSymbolicLink();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new UnreadableFile(code === 'ENOENT' ? `cannot read ${what}: no such file` : `cannot read ${what} (${code})`, code);
  }
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0) | (link ? 0 : (constants.O_NOFOLLOW ?? 0)));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    // ELOOP: the name became a link after it was looked at; ENXIO: a socket or a FIFO opened for writing only.
    if (code === 'ELOOP' || code === 'ENXIO') throw new UnreadableFile(`${what} is not a regular file: not read`, 'not-regular');
    throw new UnreadableFile(code === 'ENOENT' ? `cannot read ${what}: ${link ? 'a link to nothing' : 'no such file'}` : `cannot read ${what} (${code})`, code);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      throw new UnreadableFile(`${what} is ${link ? `a link to ${kindOf(stat)}` : kindOf(stat)}, not a regular file: not read`, 'not-regular');
    if (stat.size > maxBytes) throw new UnreadableFile(`${what} is ${bytes(stat.size)}, more than the ${bytes(maxBytes)} it may have: not read`, 'too-large');
    // Read to the bound and one byte more: a file that grows while it is read is refused too.
    let buf = Buffer.allocUnsafe(Math.min(maxBytes + 1, stat.size + 1));
    let length = 0;
    for (;;) {
      if (length === buf.length) {
        if (length > maxBytes) throw new UnreadableFile(`${what} grew past the ${bytes(maxBytes)} it may have while it was read: not read`, 'too-large');
        const bigger = Buffer.allocUnsafe(Math.min(maxBytes + 1, buf.length * 2));
        buf.copy(bigger, 0, 0, length);
        buf = bigger;
      }
      const n = readSync(fd, buf, length, buf.length - length, null);
      if (n === 0) return buf.subarray(0, length);
      length += n;
    }
  } finally {
    closeSync(fd);
  }
}

/** `readRegularFile` as UTF-8 text. */
export function readRegularText(file: string, maxBytes: number, what: string = file): string {
  return readRegularFile(file, maxBytes, what).toString('utf8');
}
