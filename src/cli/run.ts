// The `conformance` process: bin/conformance.js runs the dist/ build of this file, and
// `npm run conformance` runs it from source through tsx.
//
// A run against the embedded reference starts its child process first, before the suite's own
// modules are loaded (`require` below, not a hoisted import): the two start-ups overlap. Only when
// the configuration is certain to be such a run; anything else (a subcommand, a mistake, --help)
// is left to main, and a child nobody took is stopped at the end (runCli).
import { loadConfig } from './config';
import { loadUserDotenv } from './paths';
import { startEarly } from './reference-process';

const argv = process.argv.slice(2);
loadUserDotenv();
if (argv.length === 0 || argv[0].startsWith('-')) {
  try {
    const cfg = loadConfig(argv, process.env);
    if (cfg.embedded && !cfg.help && !cfg.list && !cfg.version)
      startEarly({ profile: cfg.profile, blockTimeMs: cfg.blockTimeMs, flashblockMs: cfg.flashblockMs });
  } catch {
    // main says what is wrong
  }
}
(require('./main') as typeof import('./main')).runCli(argv);
