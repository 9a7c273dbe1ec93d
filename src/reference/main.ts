// Standalone reference target:
//   npm run reference -- [--profile public|dedicated] [--block-time <ms>] [--flashblock-ms <ms>]
//                        [--inclusion-delay-flashblocks N] [--block-number-mode sealed|building]
//                        [--port-rest N] [--port-rpc N] [--json] [--controls] [--stop-with-stdin]
// stdout carries only the "where it listens" answer (one JSON line with --json, its `judge` the
// conformance flags that judge everything); logs go to
// stderr. Serves until SIGINT/SIGTERM (with --stop-with-stdin, also until stdin ends), then stops
// cleanly and exits 0. Bad flags: exit 2. The conformance command runs it this way as its embedded
// target (src/cli/reference-process.ts).
import { parseArgs, USAGE, UsageError, type Cli } from './cli-args';

async function main(): Promise<void> {
  let cli: Cli;
  try {
    cli = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`reference: ${err.message}\n${USAGE}`);
    process.exit(2);
  }
  if (cli.help) {
    process.stdout.write(USAGE);
    return;
  }

  const log = (line: string): void => void process.stderr.write(`reference: ${line}\n`);
  // Loaded only now, so a bad flag is answered without loading viem and the contracts.
  // require, not import(): bin/reference.js registers tsx for require only.
  const { startReference } = require('./index') as typeof import('./index');
  const ref = await startReference({ ...cli, log });

  let stopping = false;
  const shutdown = (why: string, code: number): void => {
    if (stopping) return;
    stopping = true;
    log(`${why}: stopping`);
    // Bounded: a stuck stop must not keep the process (and so anvil's guard pipe) alive.
    setTimeout(() => process.exit(code || 1), 5_000).unref();
    ref.stop().then(
      () => process.exit(code),
      (err: Error) => {
        log(`stop failed: ${err.message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT', 0));
  process.on('SIGTERM', () => shutdown('SIGTERM', 0));
  process.on('SIGHUP', () => shutdown('SIGHUP', 0));
  process.on('uncaughtException', (err) => {
    log(`uncaught exception: ${err.stack ?? err.message}`);
    shutdown('uncaught exception', 1);
  });
  process.on('unhandledRejection', (err) => {
    log(`unhandled rejection: ${(err as Error)?.stack ?? String(err)}`);
    shutdown('unhandled rejection', 1);
  });
  if (cli.stopWithStdin) {
    // The parent holds the other end of stdin: when it goes, even by SIGKILL, the pipe ends and so
    // does this process (and anvil with it). Its stdout and stderr may be gone by then: a write
    // to them must not throw.
    for (const s of [process.stdout, process.stderr]) s.on('error', () => {});
    process.stdin.on('error', () => shutdown('stdin failed', 0));
    process.stdin.on('end', () => shutdown('stdin ended', 0));
    process.stdin.resume();
  }

  // What to pass to judge everything, ready to paste: both URLs, the local dev signer, and --require
  // full, so the advice is the strictest run there is (--base-url takes the base URL, never the list's path).
  const judge = [
    '--base-url',
    ref.baseUrl,
    '--rpc-url',
    ref.rpcUrl,
    '--signer-key',
    ref.signerKey,
    ...(ref.profile === 'public' ? ['--profile', 'public'] : []),
    '--require',
    'full',
  ];
  if (cli.json) {
    const { baseUrl, rpcUrl, profile, blockTimeMs, flashblockMs, signerKey } = ref;
    // sealGridAtMs: where the seals fall (every blockTimeMs from it), for a run that schedules by them.
    const sealGridAtMs = ref.sealGrid.atMs;
    process.stdout.write(`${JSON.stringify({ baseUrl, rpcUrl, profile, blockTimeMs, flashblockMs, sealGridAtMs, signerKey, judge })}\n`);
  } else {
    process.stdout.write(
      [
        `judge it: npm run conformance -- ${judge.join(' ')}`,
        `REST     ${ref.baseUrl}  (the list: GET ${ref.baseUrl}/v1/tokenized-stocks)`,
        `JSON-RPC ${ref.rpcUrl}  (profile ${ref.profile}, chain id ${ref.chainId})`,
        `blocks   every ${ref.blockTimeMs} ms, ${ref.flashblockMs ? `flashblocks every ${ref.flashblockMs} ms` : 'no flashblocks (instant pre-confirmation)'}`,
        `signer   ${ref.signerKey}`,
        cli.controls ? `controls ${ref.baseUrl}/_dev/{corporate-action,round,pause,unpause,seal}` : '',
        'Ctrl-C to stop.',
      ]
        .filter(Boolean)
        .join('\n') + '\n',
    );
  }
}

main().catch((err: Error) => {
  process.stderr.write(`reference: could not start: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
