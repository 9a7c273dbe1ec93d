// The `conformance` process: bin/conformance.js runs the dist/ build of this file, and
// `npm run conformance` runs it from source through tsx.
import { runCli } from './main';

runCli();
