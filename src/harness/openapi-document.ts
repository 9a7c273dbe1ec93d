/**
 * The --openapi document of a run: read from its file or fetched from its URL once, before the
 * checks run, then parsed, validated and dereferenced by swagger-parser in a worker thread with
 * time and memory limits (openapi-analysis.ts says what is refused and why). Every check of the
 * document shares one analysis.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { AnswerTooLarge, MAX_RESPONSE_BYTES, TransportError, type HttpOptions } from './http';
import { readRegularText, UnreadableFile } from './regular-file';
import { RestClient } from './rest';
import type { Exchange } from './transcript';
import type { Analysis } from './openapi-analysis';

/** `--openapi` names a URL (fetched once, before the checks run) or a file. */
export function isUrlSource(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/** The document as the run was given it: read or fetched once, then handed to every check. */
export interface OpenApiDocument {
  /** The absolute file path or the URL. */
  source: string;
  text: string;
  /** The recorded fetch of a URL (redacted), shown with the checks that judged the document. */
  exchange?: Exchange;
}

/** The document could not be had: a configuration error of the run, not a verdict. */
export class DocumentUnavailable extends Error {}

const ACCEPT = 'application/json, application/yaml;q=0.9, application/x-yaml;q=0.9, text/yaml;q=0.9, */*;q=0.5';

/**
 * Read the file, or GET the URL (bounded like every exchange: the run's timeout, a body cap, no
 * redirect followed); the run's REST headers go along only when the document lives on the REST
 * target's own origin (credentials never travel to another host). A URL must answer 200 with
 * JSON or YAML, and a file must hold it: anything else is a wrong URL or file, said now rather
 * than as a verdict on the target.
 */
export async function loadDocument(
  source: string,
  opts: { baseUrl?: string; headers: Record<string, string>; http: Omit<HttpOptions, 'transcript'> },
): Promise<OpenApiDocument> {
  if (!isUrlSource(source)) {
    let text: string;
    try {
      // A regular file only, as large as a fetched document may be (a FIFO or /dev/zero is refused, unread).
      text = readRegularText(source, MAX_RESPONSE_BYTES, `the file ${source}`);
    } catch (err) {
      throw new DocumentUnavailable(err instanceof UnreadableFile ? err.message : `cannot read ${source}: ${(err as Error).message}`);
    }
    // A file that is no document at all is the wrong file named, not the API's document being wrong.
    const { parseError } = await analyse({ source, text });
    if (parseError) throw new DocumentUnavailable(`the file ${source} is ${parseError}`);
    return { source, text };
  }
  const sameOrigin = opts.baseUrl !== undefined && originOf(source) === originOf(opts.baseUrl);
  const exchanges: Exchange[] = [];
  const rest = new RestClient(source, sameOrigin ? opts.headers : {}, { ...opts.http, transcript: { exchanges, add: (e) => void exchanges.push(e) } });
  let res;
  try {
    res = await rest.request('GET', source, { headers: { accept: ACCEPT } });
  } catch (err) {
    if (err instanceof TransportError) throw new DocumentUnavailable(`no answer fetching it: ${err.message}`);
    if (err instanceof AnswerTooLarge) throw new DocumentUnavailable(`the answer is too large: ${err.message}`);
    throw err;
  }
  if (res.status !== 200)
    throw new DocumentUnavailable(
      `GET answered HTTP ${res.status}${res.status >= 300 && res.status < 400 ? ' (redirects are not followed: give the final URL)' : ''}`,
    );
  const doc = { source, text: res.text, exchange: exchanges.at(-1) };
  const { parseError } = await analyse(doc);
  if (parseError) throw new DocumentUnavailable(`the answer (${res.contentType || 'no Content-Type'}) is ${parseError}`);
  return doc;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The suite's own limits for one analysis: past them nothing is judged (inconclusive, not failed). */
const ANALYSIS_TIME_MS = 20_000;
const ANALYSIS_MEMORY_MB = 512;

const analyses = new Map<string, Promise<Analysis>>();

/** Parse, validate, dereference and bundle once per distinct document (checks share the work). */
export function analyse(doc: Pick<OpenApiDocument, 'source' | 'text'>): Promise<Analysis> {
  const key = createHash('sha256').update(doc.source).update('\0').update(doc.text).digest('hex');
  let got = analyses.get(key);
  if (!got) {
    if (analyses.size >= 8) analyses.delete(analyses.keys().next().value as string);
    got = analyseInWorker(doc.text, doc.source);
    analyses.set(key, got);
  }
  return got;
}

/**
 * One worker serves the analyses of a process, one at a time (its start-up, loading
 * swagger-parser, is paid once); a worker past a limit is terminated and the next analysis
 * starts a fresh one. An idle worker does not keep the process alive.
 */
let worker: Worker | undefined;
let queue: Promise<unknown> = Promise.resolve();
let jobs = 0;

function analyseInWorker(text: string, base: string): Promise<Analysis> {
  const job = queue.then(() => runJob(text, base));
  queue = job;
  return job;
}

function startWorker(): Worker {
  // From source (jest, tsx) the worker is TypeScript too: it loads through tsx's hook.
  const entry = path.join(__dirname, `openapi-worker${path.extname(__filename)}`);
  return new Worker(entry, {
    execArgv: entry.endsWith('.ts') ? ['--require', require.resolve('tsx/cjs')] : [],
    resourceLimits: { maxOldGenerationSizeMb: ANALYSIS_MEMORY_MB },
  });
}

function runJob(text: string, base: string): Promise<Analysis> {
  const w = (worker ??= startWorker());
  const id = ++jobs;
  w.ref();
  return new Promise((resolve) => {
    const settle = (a: Analysis, broken: boolean) => {
      clearTimeout(timer);
      w.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (broken) {
        if (worker === w) worker = undefined;
        void w.terminate();
      } else w.unref();
      resolve(a);
    };
    const onMessage = (m: { id: number; analysis: Analysis }) => m.id === id && settle(m.analysis, false);
    const onError = (err: Error & { code?: string }) =>
      settle(
        {
          unfinished:
            err.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? `the analysis of the document ran out of the suite's ${ANALYSIS_MEMORY_MB} MiB limit`
              : `the analysis of the document stopped: ${err.message}`,
        },
        true,
      );
    const onExit = (code: number) => settle({ unfinished: `the analysis of the document stopped (worker exit ${code})` }, true);
    const timer = setTimeout(
      () => settle({ unfinished: `the analysis of the document did not finish within ${ANALYSIS_TIME_MS / 1000} s (the suite's own limit)` }, true),
      ANALYSIS_TIME_MS,
    );
    w.on('message', onMessage).once('error', onError).once('exit', onExit);
    w.postMessage({ id, text, base });
  });
}
