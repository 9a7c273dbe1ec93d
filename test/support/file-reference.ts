import { startReference, type ReferenceOptions, type ReferenceTarget } from '../../src/reference';

/**
 * A reference for the calling test file: started with `opts` before its tests, stopped after
 * them; the getter returns it once started. Call it at the file's top level (it registers the
 * file's hooks), as the fleet and reorg scenarios do.
 */
export function fileReference(opts: ReferenceOptions): () => ReferenceTarget {
  let ref: ReferenceTarget | undefined;
  beforeAll(async () => {
    ref = await startReference(opts);
  }, 60_000);
  afterAll(async () => {
    await ref?.stop();
  });
  return () => ref!;
}
