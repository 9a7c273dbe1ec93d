/**
 * What reading other people's files costs: verify-certificate and compare on a certified folder
 * whose results.json is near the cap they read (MAX_RESULTS_BYTES), on one whose results.json fails
 * its digest (never parsed), and on a 300 MB one past the cap (refused by its size, unread). Each
 * is one child process of the built CLI (READERS_BIN to measure another build), timed, with its
 * own peak RSS.
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MAX_RESULTS_BYTES } from '../src/cli/certificate/open';
import { loadSigningKey } from '../src/cli/signing-keys';
import { writeReports } from '../src/cli/write-reports';
import type { CheckResult } from '../src/harness/runner';
import { checkResult, runDocument, FULL_SCOPE } from '../test/support/documents';

const ROOT = path.resolve(__dirname, '..');

export interface ReaderCost {
  what: string;
  ms: number;
  /** CPU time (user + system) of the child: what a busy machine does not inflate. */
  cpuMs: number;
  peakRssMb: number;
  exit: number | null;
}

/** A failing check keeping `kib` KiB of exchanges, as a check against a target answering large bodies does. */
function heavyCheck(i: number, kib: number): CheckResult {
  const body = 'x'.repeat(8 * 1024 - 64);
  const exchange = {
    request: {
      method: 'POST',
      url: 'https://rpc.example/',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_getCode"}',
    },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body },
    durationMs: 3,
    curl: "curl -sS -i -X POST 'https://rpc.example/'",
  };
  const exchanges = Array.from({ length: Math.max(1, Math.round(kib / 8)) }, () => exchange);
  return checkResult(`rpc.bench-${i}`, 'failed', { cause: 'violation', exchanges, exchangeCount: exchanges.length });
}

function cli(bin: string, args: string[], what: string): ReaderCost {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-readers-'));
  const rssFile = path.join(dir, 'max-rss');
  const cpuFile = path.join(dir, 'cpu');
  const started = performance.now();
  const r = spawnSync(process.execPath, ['--require', path.join(__dirname, 'max-rss.js'), bin, ...args], {
    env: { ...process.env, MAX_RSS_FILE: rssFile, CPU_TIME_FILE: cpuFile },
    stdio: 'ignore',
    timeout: 300_000,
  });
  const ms = performance.now() - started;
  const peakRssMb = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8')) / 1024 : NaN;
  const cpuMs = existsSync(cpuFile) ? Number(readFileSync(cpuFile, 'utf8')) / 1000 : NaN;
  rmSync(dir, { recursive: true, force: true });
  return { what, ms, cpuMs, peakRssMb, exit: r.status };
}

export function readerCosts(bin = process.env.READERS_BIN ?? path.join(ROOT, 'bin/conformance.js')): ReaderCost[] {
  const work = mkdtempSync(path.join(tmpdir(), 'bench-readers-'));
  try {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const signKey = loadSigningKey(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'bench key');
    const pub = path.join(work, 'pub.pem');
    writeFileSync(pub, pair.publicKey.export({ type: 'spki', format: 'pem' }));
    // Near the cap with room for report.html, which quotes the same exchanges (each certified file is bounded alike).
    const checks = Array.from({ length: 200 }, (_, i) => heavyCheck(i, ((MAX_RESULTS_BYTES * 0.6) / 200 / 1024) | 0));
    const near = path.join(work, 'near');
    writeReports(runDocument(checks, { ...FULL_SCOPE, baseUrl: undefined, signer: false }), near, { certify: { signKey } });
    const mib = (statSync(path.join(near, 'results.json')).size / 2 ** 20).toFixed(1);

    const altered = path.join(work, 'altered');
    cpSync(near, altered, { recursive: true });
    const file = path.join(altered, 'results.json');
    const bytes = readFileSync(file);
    bytes[bytes.length - 3] ^= 1; // one byte changed: its digest fails
    writeFileSync(file, bytes);

    const huge = path.join(work, 'huge');
    cpSync(near, huge, { recursive: true });
    truncateSync(path.join(huge, 'results.json'), 300 * 10 ** 6); // 300 MB, sparse: the size is what is read first

    return [
      cli(bin, ['verify-certificate', near, '--key', pub], `verify-certificate, results.json ${mib} MiB (cap ${MAX_RESULTS_BYTES / 2 ** 20} MiB), verified`),
      cli(
        bin,
        ['verify-certificate', altered, '--key', pub],
        `verify-certificate, results.json ${mib} MiB, one byte changed (rejected by its digest, unparsed)`,
      ),
      cli(bin, ['verify-certificate', huge, '--key', pub], 'verify-certificate, results.json 300 MB (past the cap: refused unread)'),
      cli(bin, ['compare', near, near, '--report-dir', path.join(work, 'cmp')], `compare, two results.json of ${mib} MiB`),
      cli(bin, ['compare', huge, near, '--report-dir', path.join(work, 'cmp2')], 'compare, a results.json of 300 MB (past the cap: refused unread)'),
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
