// summary.md goes where README sends it, `gh pr comment --body-file summary.md`, and GitHub refuses
// a body over 65 536 characters: the summary fits whatever the run, keeping its headline and root
// causes whole, and says what it left out.
import { readerDocument } from '../../src/verdict/reader';
import { summaryWithNote } from '../../src/cli/certificate/write';
import { fitParts } from '../../src/cli/reporters/fit';
import { COMMENT_MAX_CHARS, renderSummary } from '../../src/cli/reporters/summary';
import type { Exchange } from '../../src/harness/transcript';
import { checkResult, FULL_SCOPE, runDocument } from '../support/documents';

/** An exchange as a node's long error answer leaves it: about 3 kB once printed. */
const exchange = (id: string, n: number): Exchange => ({
  request: {
    method: 'POST',
    url: 'https://rpc.example/',
    headers: { 'content-type': 'application/json' },
    body: `{"jsonrpc":"2.0","id":${n},"method":"eth_call"}`,
  },
  response: {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: `{"jsonrpc":"2.0","id":${n},"error":{"code":-32603,"message":"${id} ${'stack frame; '.repeat(200)}"}}`,
  },
  durationMs: 12,
  curl: `curl -sS https://rpc.example/ --data-raw '{"id":${n}}'`,
});

/** `failures` required checks failed, each with three exchanges, and `warnings` advisory ones. */
function run(failures: number, warnings: number) {
  const failed = Array.from({ length: failures }, (_, i) => `rpc.fault${i}.rule`).map((id) =>
    checkResult(id, 'failed', {
      exchanges: [0, 1, 2].map((n) => exchange(id, n)),
      exchangeCount: 3,
      expected: { kind: 'hex', value: '0x1' },
      actual: { kind: 'text', preview: `0x${'2'.repeat(238)}`, bytes: 402 },
    }),
  );
  const advisory = Array.from({ length: warnings }, (_, i) => checkResult(`rest.advice${i}.rule`, 'failed', { level: 'advisory', needs: ['rest'] }));
  return runDocument([...failed, ...advisory, checkResult('rpc.fine.rule')], FULL_SCOPE);
}

const characters = (s: string) => [...s].length;

describe('summary.md fits a GitHub comment', () => {
  it('a partly non-conformant node (24 failures with their exchanges): under the limit, each root cause whole, the headline first', () => {
    const doc = run(24, 40);
    const summary = renderSummary(readerDocument(doc));
    expect(Buffer.byteLength(summary)).toBeLessThan(COMMENT_MAX_CHARS);
    expect(summary.split('\n')[0]).toBe('# ❌ Tokenized stocks conformance: non-conformant');
    expect(summary).toContain(`**Status: ${doc.headline}**`);
    for (let i = 0; i < 24; i++) {
      expect(summary).toContain(`### ❌ \`rpc.fault${i}.rule\` (spec 4.5)`);
      expect(summary).toContain(`**why rpc.fault${i}.rule**`);
      expect(summary).toContain(`- actual: \``);
    }
    expect(summary).toMatch(/^> \*\*Cut to fit a comment\*\* \(GitHub takes at most 65536 characters\)\. Left out here: exchanges of root causes \(\d+\)/m);
    expect(summary).toContain('report.html and results.json beside this file hold the whole run.');
    // The overview stays: the counts and the tables go before the exchanges do.
    expect(summary).toContain('## By spec section');
    expect(summary).toContain('## Failed without failing the run, or not judged');
    expect(summary.trimEnd().split('\n').pop()).toMatch(/— status non-conformant, exit 1: /);
  });

  it('a huge run (2 000 failures): still under the limit with the certificate section, root causes kept in order until they no longer fit, and said', () => {
    const doc = run(2000, 500);
    const summary = summaryWithNote(renderSummary(readerDocument(doc)), 'SHA256:abc');
    expect(Buffer.byteLength(summary)).toBeLessThan(COMMENT_MAX_CHARS);
    expect(characters(summary)).toBeLessThan(COMMENT_MAX_CHARS);
    expect(summary).toContain('### ❌ `rpc.fault0.rule` (spec 4.5)');
    expect(summary).toMatch(/Left out here: root causes \(\d+\), /);
    expect(summary).toContain('## Certificate');
  });

  it('a run that fits is printed whole, with no note', () => {
    const summary = renderSummary(readerDocument(run(2, 2)));
    expect(summary).not.toContain('Cut to fit');
    expect(summary).toContain('```');
    expect(summary).toContain('## Failed without failing the run, or not judged');
  });
});

describe('fitParts', () => {
  const note = (what: string) => [`left out: ${what}`];
  it('keeps the parts of rank 0, then the lowest ranks, and never a part without the part it belongs to', () => {
    const root = { lines: ['root '.repeat(10)], rank: 1, kind: 'roots' };
    const parts = [
      { lines: ['head'], rank: 0 },
      root,
      { lines: ['x'.repeat(80)], rank: 3, kind: 'details', of: root },
      { lines: ['table'], rank: 2, kind: 'tables' },
      { lines: ['end'], rank: 0 },
    ];
    expect(fitParts(parts, 1000, note)).toBe(['head', root.lines[0], 'x'.repeat(80), 'table', 'end'].join('\n'));
    expect(fitParts(parts, 120, note)).toBe(['head', 'left out: details (1)', root.lines[0], 'table', 'end'].join('\n'));
    expect(fitParts(parts, 60, note)).toBe(['head', 'left out: roots (1), details (1)', 'table', 'end'].join('\n'));
  });

  it('cuts at a line, and says so, when even the parts of rank 0 do not fit', () => {
    const text = fitParts([{ lines: Array.from({ length: 100 }, (_, i) => `line ${i} é`), rank: 0 }], 200, note);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(200);
    expect(text).toMatch(/^line 0 é\n/);
    expect(text).toMatch(/\nline \d+ é\n\nleft out: the rest of this page$/);
  });
});
