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
/**
 * Every command started at once against the one reference target, each test awaiting its own:
 * most of a command's time is spent waiting on the chain, and a conformant target serves several
 * clients (their reads and the signer's transactions) at a time.
 */
const runs = new Map<string, Promise<{ code: number | null; out: string }>>();
beforeAll(async () => {
  ref = await startReference({ profile: 'dedicated', blockTimeMs: 1000 });
  for (const command of blocks.flatMap((b) => b.commands)) if (!runs.has(command)) runs.set(command, bash(asRun(command)));
  // A rejection is the test's to report; none goes unhandled meanwhile.
  for (const run of runs.values()) run.catch(() => undefined);
}, 60_000);
// Each command ends (a test filtered out included) before its target stops.
afterAll(async () => {
  await Promise.allSettled(runs.values());
  await ref?.stop();
}, 300_000);

function asRun(command: string): string {
  return (
    command
      .replace(/\bnpm run conformance --(?= |$)/g, CLI)
      .replace(/\bnpm run conformance(?= |$)/g, CLI)
      .replace(/https:\/\/api(\.staging)?\.example/g, ref.baseUrl)
      .replace(/https:\/\/(rpc\.staging|node\.provider|public-node|node)\.example/g, ref.rpcUrl)
      // Any other example host: a closed loopback port (no name lookup leaves the machine); the run
      // is unreachable, and the marker judges the flags as written.
      .replace(/https:\/\/[\w.-]+\.example\b/g, 'http://127.0.0.1:9')
      .replace(/Bearer …/g, 'Bearer doc-test-token')
      .replace(/SIGNER_PRIVATE_KEY=0x…/g, `SIGNER_PRIVATE_KEY=${ref.signerKey}`)
  );
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
        const r = await runs.get(command)!;
        const ok = expected === 'no configuration error' ? r.code !== 2 && r.code !== null : expected === `exit ${r.code}`;
        if (!ok) throw new Error(`${command}\nexited ${r.code}, the doc says: ${expected}\n${r.out}`);
      }, 300_000);
    }
  }
});
