import { createHash } from 'node:crypto';
import { fullCollection } from './collect';
import { JsonBeyondLimits } from './json';

/**
 * The most answer bytes one run reads, all requests together: hundreds of times what a run
 * against a real deployment reads (its answers are KiB; a 16 MiB list is read a few times), and
 * few enough 16 MiB answers that a target sending one to every request still ends in bounded
 * time. Past it, answers are refused (AnswerBudgetSpent): the checks that asked are not judged.
 */
export const RUN_ANSWER_BYTES = 512 * 1024 * 1024;

/**
 * Answer bytes read between two full collections (see AnswerBudget): a run against a real
 * deployment (answers of KiB) seldom reads this much in all; a run over answers near the 16 MiB
 * cap collects twice per answer. Measured (npm run bench -- bounded): at 32 MiB a run over lists
 * of conformant records at the cap still peaked near 420 MiB, at 8 MiB near 350 MiB.
 */
export const COLLECT_EVERY_BYTES = 8 * 1024 * 1024;

/**
 * The run's answer bytes read so far, shared by every client of the run (see RUN_ANSWER_BYTES).
 * Every COLLECT_EVERY_BYTES of answers it also has the heap collected: an answer near the cap
 * leaves several times its size behind as garbage once read (its text, its parsed value, what the
 * checks made of it), and V8 grows the heap to several times what is live before collecting on
 * its own, so a run over such answers would peak far above what it holds. A collection costs
 * tens of milliseconds, and the run's budget bounds how many are made (RUN_ANSWER_BYTES / COLLECT_EVERY_BYTES).
 */
export class AnswerBudget {
  private read = 0;
  private sinceCollection = 0;
  constructor(
    readonly limit = RUN_ANSWER_BYTES,
    private readonly collect: (() => void) | undefined = fullCollection(),
  ) {}

  /** Counts `bytes` more of an answer; throws AnswerBudgetSpent once the run has read more than its limit. */
  charge(bytes: number): void {
    this.read += bytes;
    this.sinceCollection += bytes;
    if (this.sinceCollection >= COLLECT_EVERY_BYTES) {
      this.sinceCollection = 0;
      this.collect?.();
    }
    if (this.read > this.limit) throw new AnswerBudgetSpent(`the run has read ${this.limit} bytes of answers, all it reads: this answer was not read`);
  }

  get spent(): boolean {
    return this.read > this.limit;
  }
}

/** An answer refused because the run's answer budget is spent: this suite's bound, not the target's fault (inconclusive, cause `limit`). */
export class AnswerBudgetSpent extends JsonBeyondLimits {
  override name = 'AnswerBudgetSpent';
}

/**
 * An answer refused because it is longer than one answer may be (the cap of readCapped): the
 * target did answer, and the spec bounds no answer's size (8), so this is this suite's bound,
 * not the target's fault (inconclusive, cause `limit`), never "no answer".
 */
export class AnswerTooLarge extends JsonBeyondLimits {
  override name = 'AnswerTooLarge';
}

/**
 * The bytes of a body as one Buffer, held once. Chunks are copied, as they come, into one
 * Buffer of the length the answer declares (Content-Length, within the cap), so a 16 MiB answer
 * is never held both as its chunks and as their concatenation; a body without a declared
 * length (chunked, or longer than declared once decompressed) is collected as chunks and joined
 * once, the chunk list dropped at once.
 */
export class BodyBytes {
  private whole: Buffer | undefined;
  private filled = 0;
  private chunks: Uint8Array[] = [];
  private size = 0;

  constructor(declared: number | undefined, cap: number) {
    if (declared !== undefined && Number.isSafeInteger(declared) && declared > 0 && declared <= cap) this.whole = Buffer.allocUnsafe(declared);
  }

  get byteLength(): number {
    return this.size;
  }

  /** Whether chunks are held apart (no declared length, or the body outgrew it). */
  get inChunks(): boolean {
    return this.chunks.length > 0;
  }

  add(chunk: Uint8Array): void {
    this.size += chunk.byteLength;
    if (this.whole && this.filled + chunk.byteLength <= this.whole.length) {
      this.whole.set(chunk, this.filled);
      this.filled += chunk.byteLength;
      return;
    }
    if (this.whole) {
      // Longer than declared (a decompressed body): what was copied becomes the first chunk.
      this.chunks.push(this.whole.subarray(0, this.filled));
      this.whole = undefined;
    }
    this.chunks.push(chunk);
  }

  /** Lets go of what was read (a refused body), before the cancel is awaited. */
  drop(): void {
    this.chunks = [];
    this.whole = undefined;
  }

  /** The body, and nothing of it kept here after. */
  take(): Buffer {
    const whole = this.chunks.length > 0 ? Buffer.concat(this.chunks, this.size) : (this.whole?.subarray(0, this.filled) ?? Buffer.alloc(0));
    this.chunks = [];
    this.whole = undefined;
    return whole;
  }
}

/** A body as the HTTP client hands it: its chunks, and a way to stop reading (the connection is then dropped, not drained). */
export interface BodySource extends AsyncIterable<Uint8Array> {
  destroy(err?: Error): unknown;
}

/**
 * A body read up to `cap` bytes, each chunk charged to the run's answer budget, as text, with
 * the SHA-256 of its bytes when it is `digestFrom` bytes or longer (what a client may know a long
 * answer by once its text is dropped: rest.ts parses the same bytes once).
 * `declared`: its Content-Length, when the body is not content-encoded (a decoded body has no
 * declared length). A body past the cap is refused as soon as the cap is passed: a decoded
 * body's bytes are counted after decoding, so a small compressed answer cannot grow past it.
 */
export async function readCapped(
  source: BodySource,
  declared: number | undefined,
  cap: number,
  answers?: AnswerBudget,
  digestFrom = Infinity,
): Promise<{ text: string; sha256?: string }> {
  const body = new BodyBytes(declared, cap);
  const refuse = (err: Error): never => {
    body.drop();
    source.destroy();
    throw err;
  };
  for await (const value of source) {
    if (body.byteLength + value.byteLength > cap)
      refuse(new AnswerTooLarge(`response body exceeds ${cap} bytes, more than this suite reads of one answer: not read`));
    try {
      answers?.charge(value.byteLength);
    } catch (err) {
      refuse(err as Error);
    }
    body.add(value);
  }
  // UTF-8 decoding makes a one-byte string of an ASCII body already; decoding such a body as
  // latin1 instead made an external string of the same size, out of V8's heap accounting, and
  // measured no lower.
  const bytes = body.take();
  // A hash of the bytes already held costs a few milliseconds for 16 MiB; of the text, a copy of it first.
  const sha256 = bytes.length >= digestFrom ? createHash('sha256').update(bytes).digest('hex') : undefined;
  return { text: bytes.toString('utf8'), ...(sha256 ? { sha256 } : {}) };
}
