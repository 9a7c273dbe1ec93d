import type { RunConfig } from '../../src/cli/config';
import { Egress } from '../../src/cli/egress';
import type { Redactor } from '../../src/harness/redact';

/** Every secret of the configuration, as the egress gate registers it: a Redactor alone, for tests that build a results document without a run. */
export function redactorFor(cfg: RunConfig): Redactor {
  return new Egress().registerConfig(cfg).redactor;
}
