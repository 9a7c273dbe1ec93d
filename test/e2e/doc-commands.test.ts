// The docs' shell blocks marked `<!-- run by test/e2e/doc-commands.test.ts: … -->`, run as written
// against the embedded reference target: the example hosts become its URLs, `…` placeholders test
// values, `npm run conformance --` this checkout's CLI. The marker says what each command must do:
// `exit N`, or `no configuration error` (the flags and values as written are accepted: never exit 2).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startReference, type ReferenceTarget } from '../../src/reference';
import { docFiles, RUN_MARKER, shellBlocks } from '../support/doc-blocks';

const ROOT = path.resolve(__dirname, '../..');
const CLI = `"${process.execPath}" "${ROOT}/bin/run-ts.js" "${ROOT}/src/cli/run.ts"`;
const blocks = docFiles()
  .flatMap(shellBlocks)
  .filter((b) => b.marker && RUN_MARKER.test(b.marker));

let ref: ReferenceTarget;
beforeAll(async () => {
  ref = await startReference({ profile: 'dedicated', blockTimeMs: 1000 });
}, 60_000);
afterAll(() => ref?.stop());

function asRun(command: string): string {
  return command
    .replace(/\bnpm run conformance --(?= |$)/g, CLI)
    .replace(/\bnpm run conformance(?= |$)/g, CLI)
    .replace(/https:\/\/api(\.staging)?\.example/g, ref.baseUrl)
    .replace(/https:\/\/(rpc\.staging|node\.provider|public-node|node)\.example/g, ref.rpcUrl)
    .replace(/Bearer …/g, 'Bearer doc-test-token')
    .replace(/SIGNER_PRIVATE_KEY=0x…/g, `SIGNER_PRIVATE_KEY=${ref.signerKey}`);
}

function bash(script: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-c', script], {
      cwd: mkdtempSync(path.join(tmpdir(), 'doc-command-')),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' },
    });
    let out = '';
    child.stdout.on('data', (d) => (out = (out + d).slice(-4000)));
    child.stderr.on('data', (d) => (out = (out + d).slice(-4000)));
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`not done within 240 s: ${script}\n${out}`))), 240_000);
    child.on('exit', (code) => (clearTimeout(timer), resolve({ code, out })));
  });
}

describe('the docs’ commands, run against the reference target', () => {
  it('there are some', () => expect(blocks.length).toBeGreaterThanOrEqual(1));

  for (const block of blocks) {
    const expected = RUN_MARKER.exec(block.marker!)![1];
    for (const command of block.commands) {
      it(`${block.file}:${block.line} ${command.slice(0, 100)} → ${expected}`, async () => {
        const r = await bash(asRun(command));
        const ok = expected === 'no configuration error' ? r.code !== 2 && r.code !== null : expected === `exit ${r.code}`;
        if (!ok) throw new Error(`${command}\nexited ${r.code}, the doc says: ${expected}\n${r.out}`);
      }, 300_000);
    }
  }
});
