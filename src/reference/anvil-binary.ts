// Where the embedded target's anvil comes from, asked before anything starts: the binary is an
// optional dependency (Linux x64 only), so an install on another platform, or with
// --omit=optional, has none, and a run that needs it must say so in one line (exit 2), not
// with a module-resolution stack. anvil.ts resolves the same package when it spawns anvil.
import { existsSync } from 'node:fs';
import path from 'node:path';

export const ANVIL_PACKAGE = '@foundry-rs/anvil-linux-amd64';

export type AnvilLocation = { found: true; binary: string } | { found: false; problem: string };

export interface LocateOptions {
  /** The version this package pins, for the install hint. */
  version?: string;
  platform?: NodeJS.Platform;
  arch?: string;
  resolve?: (request: string) => string;
}

export function locateAnvil(opts: LocateOptions = {}): AnvilLocation {
  const { platform = process.platform, arch = process.arch, resolve = require.resolve } = opts;
  const remote = 'or point the suite at a running target with --base-url/--rpc-url (BASE_URL/RPC_URL)';
  if (platform !== 'linux' || arch !== 'x64') {
    return {
      found: false,
      problem: `the embedded reference target needs anvil from ${ANVIL_PACKAGE}, which exists for Linux x64 only (this is ${platform}-${arch}): run it on Linux x64, ${remote}`,
    };
  }
  let binary: string;
  try {
    binary = path.join(path.dirname(resolve(`${ANVIL_PACKAGE}/package.json`)), 'bin', 'anvil');
  } catch {
    const spec = opts.version ? `${ANVIL_PACKAGE}@${opts.version}` : ANVIL_PACKAGE;
    return {
      found: false,
      problem: `the embedded reference target needs anvil, and the optional dependency ${ANVIL_PACKAGE} is not installed: npm install ${spec}, ${remote}`,
    };
  }
  if (!existsSync(binary))
    return { found: false, problem: `the embedded reference target needs anvil, and ${binary} is missing: reinstall ${ANVIL_PACKAGE}, ${remote}` };
  return { found: true, binary };
}
