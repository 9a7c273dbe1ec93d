// Regenerates artifacts.json from the .sol sources:
//   node bin/run-ts.js src/reference/contracts/build.ts
import { writeFileSync } from 'node:fs';
import { ARTIFACTS_PATH, compileContracts, serializeArtifacts } from './compile';

const artifacts = compileContracts();
writeFileSync(ARTIFACTS_PATH, serializeArtifacts(artifacts));
for (const [name, c] of Object.entries(artifacts.contracts)) {
  process.stdout.write(`${name}: ${(c.deployedBytecode.length - 2) / 2} bytes runtime\n`);
}
process.stdout.write(`wrote ${ARTIFACTS_PATH} (solc ${artifacts.compiler})\n`);
