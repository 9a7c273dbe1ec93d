/**
 * Worker thread entry: analyses the OpenAPI documents it is sent ({ id, text, base }), one at a
 * time, and posts each Analysis back with its id. See openapi-analysis.ts for why this work runs
 * off the main thread.
 */
import { parentPort } from 'node:worker_threads';
import { analyseText, type Analysis } from './openapi-analysis';

parentPort!.on('message', ({ id, text, base }: { id: number; text: string; base: string }) => {
  analyseText(text, base).then(
    (analysis) => parentPort!.postMessage({ id, analysis }),
    (err: unknown) =>
      parentPort!.postMessage({
        id,
        analysis: { unfinished: `internal error in the analysis (not a verdict): ${String((err as Error)?.message ?? err)}` } satisfies Analysis,
      }),
  );
});
