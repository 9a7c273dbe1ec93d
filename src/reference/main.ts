// Standalone reference target:
//   npm run reference -- [--profile public|dedicated] [--block-time <ms>] [--port-rest N]
//                        [--port-rpc N] [--json] [--controls]
// stdout carries only the "where it listens" answer (one JSON line with --json); logs go to
// stderr. Serves until SIGINT/SIGTERM, then stops cleanly and exits 0. Bad flags: exit 2.
import { DEFAULT_BLOCK_TIME_MS, startReference, type ReferenceOptions } from './index';

const USAGE = `usage: reference [--profile public|dedicated] [--block-time <ms>] [--port-rest <n>] [--port-rpc <n>] [--json] [--controls]

Starts the embedded reference target (anvil + JSON-RPC gateway + REST listing) on 127.0.0.1.
  --profile      public: eth_getBlockReceipts answers HTTP 403; dedicated (default): served
  --block-time   block seal interval in ms (default ${DEFAULT_BLOCK_TIME_MS})
  --port-rest    REST port (default: a free port)
  --port-rpc     JSON-RPC port (default: a free port)
  --json         print one JSON line {baseUrl, rpcUrl, profile, signerKey} first on stdout
  --controls     enable dev-only scenario endpoints under {baseUrl}/_dev/
`;

class UsageError extends Error {}

interface Cli extends ReferenceOptions {
  json: boolean;
  help: boolean;
}

export function parseArgs(argv: readonly string[]): Cli {
  const cli: Cli = { json: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[++i];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`${flag} needs a value`);
      return next;
    };
    const boolean = (): true => {
      if (inline !== undefined) throw new UsageError(`${flag} takes no value`);
      return true;
    };
    switch (flag) {
      case '--profile': {
        const v = value();
        if (v !== 'public' && v !== 'dedicated') throw new UsageError(`--profile must be public or dedicated, got ${JSON.stringify(v)}`);
        cli.profile = v;
        break;
      }
      case '--block-time':
        cli.blockTimeMs = integer(flag, value(), 10, 3_600_000);
        break;
      case '--port-rest':
        cli.portRest = integer(flag, value(), 0, 65535);
        break;
      case '--port-rpc':
        cli.portRpc = integer(flag, value(), 0, 65535);
        break;
      case '--json':
        cli.json = boolean();
        break;
      case '--controls':
        cli.controls = boolean();
        break;
      case '--help':
      case '-h':
        cli.help = true;
        break;
      default:
        throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  if (cli.portRest !== undefined && cli.portRest !== 0 && cli.portRest === cli.portRpc) {
    throw new UsageError('--port-rest and --port-rpc must differ');
  }
  return cli;
}

function integer(flag: string, v: string, min: number, max: number): number {
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  return Number(v);
}

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

  if (cli.json) {
    const { baseUrl, rpcUrl, profile, signerKey } = ref;
    process.stdout.write(`${JSON.stringify({ baseUrl, rpcUrl, profile, signerKey })}\n`);
  } else {
    process.stdout.write(
      [
        `REST     ${ref.baseUrl}/v1/tokenized-stocks`,
        `JSON-RPC ${ref.rpcUrl}  (profile ${ref.profile}, chain id ${ref.chainId})`,
        `signer   ${ref.signerKey}`,
        cli.controls ? `controls ${ref.baseUrl}/_dev/{corporate-action,round,pause,unpause,seal}` : '',
        'Ctrl-C to stop.',
      ]
        .filter(Boolean)
        .join('\n') + '\n',
    );
  }
}

if (require.main === module || process.argv[1]?.endsWith('reference.js')) {
  main().catch((err: Error) => {
    process.stderr.write(`reference: could not start: ${err.stack ?? err.message}\n`);
    process.exit(1);
  });
}
