import type { Check } from '../../src/harness/check';

export const checks: Check[] = [];
