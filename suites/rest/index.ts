import type { Check } from '../../src/harness/check';
import { endpointChecks } from './endpoint';
import { errorChecks } from './errors';
import { fieldChecks } from './fields';
import { openapiChecks } from './openapi';
import { valueChecks } from './values';

/**
 * REST checks (spec 2.1-2.3, 4.1, 5.1, 7, 9.1): the endpoint, each field of each record, values,
 * read-only and errors, and the team's published OpenAPI document (--openapi).
 */
export const checks: Check[] = [...endpointChecks, ...fieldChecks, ...valueChecks, ...errorChecks, ...openapiChecks];
