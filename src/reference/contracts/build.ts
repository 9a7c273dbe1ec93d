// Regenerates artifacts.json from the .sol sources:
//   node bin/run-ts.js src/reference/contracts/build.ts           (write)
//   node bin/run-ts.js src/reference/contracts/build.ts --check   (exit 1 if stale)
import { readFileSync, writeFileSync } from 'node:fs';
import { ARTIFACTS_PATH, compileContracts, serializeArtifacts } from './compile';

const artifacts = compileContracts();
const text = serializeArtifacts(artifacts);
if (process.argv.includes('--check')) {
  const committed = readFileSync(ARTIFACTS_PATH, 'utf8');
  if (committed !== text) {
    process.stderr.write(`${ARTIFACTS_PATH} is stale; run this script without --check\n`);
    process.exit(1);
  }
  process.stdout.write(`artifacts up to date (solc ${artifacts.compiler})\n`);
} else {
  writeFileSync(ARTIFACTS_PATH, text);
  for (const [name, c] of Object.entries(artifacts.contracts)) {
    process.stdout.write(`${name}: ${(c.deployedBytecode.length - 2) / 2} bytes runtime\n`);
  }
  process.stdout.write(`wrote ${ARTIFACTS_PATH} (solc ${artifacts.compiler})\n`);
}
