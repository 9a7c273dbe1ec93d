// One pre-confirmation run through the CLI at --samples 30 against a target on loopback (a
// proxy or a fleet in front of the reference), its results.json read back: the fleet and the
// reorg tests judge their targets the same way, so they share it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';
import type { RunDocument } from '../../src/verdict/document';
import { sink } from './sink';

/** The pre-confirmation checks these runs judge. */
export const PRECONF_CHECKS = /^preconf\.(nonce|code|estimate|receipts)\./;

export interface PreconfTarget {
  restUrl: string;
  rpcUrl: string;
  stop(): Promise<void>;
}

/** Judges `target` (stopped afterwards, whatever happens) with the reference's signer key. */
export function judgePreconf(
  target: PreconfTarget,
  signerKey: string,
  opts: { samples: string; deadlineMs: number },
): Promise<{ exitCode: number; doc: RunDocument; out: string }> {
  return judgeTarget(target, ['--signer-key', signerKey, '--only', 'preconf', '--grep', PRECONF_CHECKS.source, '--samples', opts.samples], opts.deadlineMs);
}

/** One CLI run against `target` with `args` (scope, samples), its results.json read back; the target is stopped afterwards, whatever happens. `timeoutMs`: each request's. */
export async function judgeTarget(
  target: PreconfTarget,
  args: readonly string[],
  deadlineMs: number,
  timeoutMs = 3000,
): Promise<{ exitCode: number; doc: RunDocument; out: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'preconf-run-'));
  const out = sink();
  try {
    const argv = ['--base-url', target.restUrl, '--rpc-url', target.rpcUrl, ...args];
    const exitCode = await main(
      [...argv, '--report-dir', dir, '--timeout-ms', String(timeoutMs), '--deadline-ms', String(deadlineMs)],
      {},
      { out: out.stream, err: out.stream },
    );
    const doc = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunDocument;
    return { exitCode, doc, out: out.text() };
  } finally {
    await target.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
