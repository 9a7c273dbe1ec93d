// Compiles the reference contracts with the npm `solc` package. Only build.ts and the
// artifacts test call this: start-up reads the committed artifacts.json instead, because
// loading soljson takes seconds.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface ContractArtifact {
  abi: unknown[];
  bytecode: `0x${string}`;
  deployedBytecode: `0x${string}`;
}

export interface Artifacts {
  compiler: string;
  contracts: Record<string, ContractArtifact>;
}

export const CONTRACTS_DIR = __dirname;
export const ARTIFACTS_PATH = path.join(__dirname, 'artifacts.json');

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
}

export function compileContracts(): Artifacts {
  const solc = require('solc') as { compile(input: string): string; version(): string };
  const sources: Record<string, { content: string }> = {};
  for (const file of readdirSync(CONTRACTS_DIR)
    .filter((f) => f.endsWith('.sol'))
    .sort()) {
    sources[file] = { content: readFileSync(path.join(CONTRACTS_DIR, file), 'utf8') };
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      // Pinned so the artifacts do not depend on the compiler's default target.
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));

  const contracts: Record<string, ContractArtifact> = {};
  for (const file of Object.keys(output.contracts).sort()) {
    for (const [name, c] of Object.entries(output.contracts[file])) {
      if (c.evm.bytecode.object === '') continue; // interfaces
      contracts[name] = {
        abi: c.abi,
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
      };
    }
  }
  return { compiler: solc.version(), contracts };
}

export function serializeArtifacts(artifacts: Artifacts): string {
  return `${JSON.stringify(artifacts, null, 2)}\n`;
}
