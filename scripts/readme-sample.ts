// `npm run readme-sample`: the README's "What a run looks like" block, from a real run of the
// main job (`npm run conformance`, the embedded reference target), so the sample cannot drift
// from what the tool prints. Ports and times vary between runs and are shown as they came;
// test/unit/readme.test.ts checks the block against the current checks (count, ids, status).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../src/cli/main';
import { README_SAMPLE, replaceSample } from '../test/support/readme';

/** The first result lines, an ellipsis, the last one, then everything from the table on. */
function excerpt(console: string): string {
  const lines = console.replace(/\r/g, '').split('\n');
  const results = lines.map((l, i) => [l, i] as const).filter(([l]) => /^\[\s*\d+\/\d+\]/.test(l));
  const [first, last] = [results[0][1], results[results.length - 1][1]];
  const kept = [...lines.slice(0, first + 3), '…', lines[last], ...lines.slice(last + 1)];
  return kept.join('\n').replace(/\n+$/, '');
}

async function run(): Promise<number> {
  let text = '';
  const capture = new Writable({ write: (chunk, _e, cb) => ((text += String(chunk)), cb()) }) as unknown as NodeJS.WriteStream;
  const dir = mkdtempSync(path.join(tmpdir(), 'readme-sample-'));
  const code = await main(['--embedded', '--report-dir', dir], { CI: 'true', NO_COLOR: '1' }, { out: capture, err: capture });
  if (code !== 0) {
    process.stderr.write(`readme-sample: the run exited ${code}, not 0; the README keeps its sample\n${text.slice(-2000)}\n`);
    return 1;
  }
  const block = ['```', '$ npm run conformance', excerpt(text).replace(dir, 'reports'), '```'].join('\n').replaceAll(`${dir}/`, 'reports/');
  writeFileSync(README_SAMPLE, replaceSample(readFileSync(README_SAMPLE, 'utf8'), block));
  process.stdout.write(`README.md sample updated (exit ${code})\n`);
  return 0;
}

run().then((code) => process.exit(code));
