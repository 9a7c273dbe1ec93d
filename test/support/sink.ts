import { Writable } from 'node:stream';

/** A stream for the CLI's console that keeps the last 20 kB, to show when a run surprises a test. */
export function sink(): { stream: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const w = new Writable({
    write(chunk, _enc, cb) {
      text = (text + String(chunk)).slice(-20_000);
      cb();
    },
  });
  return { stream: w as unknown as NodeJS.WriteStream, text: () => text };
}

/** A stream for the CLI's console that keeps the whole output (bounded at 8 MB): for tests that search all of it. */
export function capture(): { stream: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const w = new Writable({
    write(chunk, _enc, cb) {
      if (text.length < 8e6) text += String(chunk);
      cb();
    },
  });
  return { stream: w as unknown as NodeJS.WriteStream, text: () => text };
}
