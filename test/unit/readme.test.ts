/**
 * The README's sample run is generated from a real run (npm run readme-sample); this keeps it in
 * step with the checks as they are now, so the README cannot show a count, an id or a status line
 * the tool no longer prints. Regenerate it when this fails.
 */
import { readFileSync } from 'node:fs';
import { allChecks } from '../../suites';
import { README_SAMPLE, sampleOf } from '../support/readme';

const sample = sampleOf(readFileSync(README_SAMPLE, 'utf8'));
const total = allChecks().length;

describe('README sample run (npm run readme-sample)', () => {
  it('is there, from the main job', () => {
    expect(sample).toContain('$ npm run conformance');
    expect(sample).toMatch(/^target: the embedded reference target/m);
  });

  it('counts every check there is now', () => {
    const totals = [...sample.matchAll(/^\[\s*\d+\/(\d+)\]/gm)].map((m) => Number(m[1]));
    expect(totals.length).toBeGreaterThanOrEqual(2);
    expect(new Set(totals)).toEqual(new Set([total]));
    // Every category of the count line (passed, failed, any warnings or known failures, not judged, skipped) adds up to the total.
    const count = /^(\d+ passed, \d+ failed, .*\d+ not judged.*, \d+ skipped) of (\d+) checks/m.exec(sample);
    expect(count).not.toBeNull();
    const parts = count![1]
      .replace(/\([^)]*\)/g, '')
      .split(', ')
      .map((p) => Number(/^\d+/.exec(p)![0]));
    expect(Number(count![2])).toBe(total);
    expect(parts.reduce((a, b) => a + b, 0)).toBe(total);
  });

  it('names only checks that exist', () => {
    const ids = new Set(allChecks().map((c) => c.id));
    const shown = [...sample.matchAll(/\b(?:rest|rpc|cross|preconf)\.[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)+/g)].map((m) => m[0]);
    expect(shown.length).toBeGreaterThan(5);
    expect(shown.filter((id) => !ids.has(id))).toEqual([]);
  });

  it('ends with the status of a conformant run, naming what it left out, and its exit code', () => {
    const lines = sample.trim().split('\n');
    expect(lines.at(-3)).toMatch(
      /^status: conformant — both interfaces and the pre-confirmed state; .*no --openapi.* \(profile dedicated, embedded reference target\)$/,
    );
    expect(lines.at(-2)).toBe('exit 0: conformant — every required check in scope was judged and none failed');
  });
});
