// Docs true by test: every shell block a user would paste from README.md, CONTRIBUTING.md or docs/
// says what it is, right above its fence: run by test/e2e/doc-commands.test.ts against the reference
// target (and must do what the marker says), or illustrative (placeholders, other machines, heavy).
import { docFiles, ILLUSTRATIVE_MARKER, RECIPE_MARKER, RUN_MARKER, shellBlocks } from '../support/doc-blocks';

describe('the docs’ shell blocks', () => {
  const blocks = docFiles().flatMap(shellBlocks);

  it('are there to check', () => {
    expect(blocks.length).toBeGreaterThan(10);
  });

  it('each is marked: run by a test, or illustrative', () => {
    const unmarked = blocks.filter((b) => !b.marker || !(RUN_MARKER.test(b.marker) || RECIPE_MARKER.test(b.marker) || ILLUSTRATIVE_MARKER.test(b.marker)));
    expect(unmarked.map((b) => `${b.file}:${b.line} ${b.marker ?? '(no marker)'}`)).toEqual([]);
  });

  it('some are run, not all illustrative', () => {
    expect(blocks.filter((b) => b.marker && RUN_MARKER.test(b.marker)).length).toBeGreaterThanOrEqual(2);
  });
});
