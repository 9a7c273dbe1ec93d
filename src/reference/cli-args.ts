// Command-line flags of the standalone reference target (kept apart from main.ts, which runs
// on load, so the parser can be tested).
import { DEFAULT_BLOCK_TIME_MS, DEFAULT_FLASHBLOCK_MS } from './defaults';
import type { ReferenceOptions } from './index';

export const USAGE = `usage: reference [--profile public|dedicated] [--block-time <ms>] [--flashblock-ms <ms>]
                 [--inclusion-delay-flashblocks <n>] [--block-number-mode sealed|building]
                 [--port-rest <n>] [--port-rpc <n>] [--json] [--controls] [--stop-with-stdin]

Starts the embedded reference target (anvil + JSON-RPC gateway + REST listing) on 127.0.0.1.
  --profile      public: eth_getBlockReceipts answers HTTP 403; dedicated (default): served
  --block-time   block seal interval in ms (default ${DEFAULT_BLOCK_TIME_MS})
  --flashblock-ms
                 flashblock interval in ms (default ${DEFAULT_FLASHBLOCK_MS}): accepted transactions show at
                 "pending" at the next flashblock; 0 shows them as soon as accepted
  --inclusion-delay-flashblocks
                 extra flashblocks a transaction waits beyond the next one (default 0)
  --block-number-mode
                 sealed (default): eth_blockNumber is the head; building: the block being
                 built once it has a flashblock, as some Flashblocks nodes report
  --port-rest    REST port (default: a free port)
  --port-rpc     JSON-RPC port (default: a free port)
  --json         print one JSON line {baseUrl, rpcUrl, profile, blockTimeMs, flashblockMs, signerKey, judge}
                 first on stdout
  --controls     enable dev-only scenario endpoints under {baseUrl}/_dev/
  --stop-with-stdin
                 also stop when stdin ends (for a parent process that starts this one: its end,
                 even a SIGKILL, closes the pipe)
`;

export class UsageError extends Error {}

export interface Cli extends ReferenceOptions {
  json: boolean;
  help: boolean;
  stopWithStdin: boolean;
}

export function parseArgs(argv: readonly string[]): Cli {
  const cli: Cli = { json: false, help: false, stopWithStdin: false };
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
      case '--flashblock-ms':
        cli.flashblockMs = integer(flag, value(), 0, 3_600_000);
        break;
      case '--inclusion-delay-flashblocks':
        cli.inclusionDelayFlashblocks = integer(flag, value(), 0, 1000);
        break;
      case '--block-number-mode': {
        const v = value();
        if (v !== 'sealed' && v !== 'building') throw new UsageError(`--block-number-mode must be sealed or building, got ${JSON.stringify(v)}`);
        cli.blockNumberMode = v;
        break;
      }
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
      case '--stop-with-stdin':
        cli.stopWithStdin = boolean();
        break;
      case '--help':
      case '-h':
        cli.help = true;
        break;
      default:
        throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  const blockTimeMs = cli.blockTimeMs ?? DEFAULT_BLOCK_TIME_MS;
  if (cli.flashblockMs !== undefined && cli.flashblockMs !== 0 && (cli.flashblockMs < 10 || cli.flashblockMs >= blockTimeMs)) {
    throw new UsageError(`--flashblock-ms must be 0 or from 10 to the block time - 1 (${blockTimeMs - 1}), got ${cli.flashblockMs}`);
  }
  if (cli.inclusionDelayFlashblocks && cli.flashblockMs === 0) throw new UsageError('--inclusion-delay-flashblocks needs flashblocks (--flashblock-ms > 0)');
  if (cli.portRest !== undefined && cli.portRest !== 0 && cli.portRest === cli.portRpc) {
    throw new UsageError('--port-rest and --port-rpc must differ');
  }
  return cli;
}

function integer(flag: string, v: string, min: number, max: number): number {
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  return Number(v);
}
