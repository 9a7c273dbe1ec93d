import type { RunSampling } from '../../harness/sampling';
import type { ReaderDocument } from '../../verdict/reader';
import { createHash } from 'node:crypto';
import { publicUrl } from '../../harness/redact';
import { latencyOf } from '../reporters/metrics';
import type { OutcomeCounts } from '../../verdict/outcome';
import type { RunScope } from '../../verdict/scope';
import type { RunStatus } from '../../verdict/status';
import { badgeOf, type Badge } from './badge';

/** in-toto Statement v1 (github.com/in-toto/attestation, spec/v1/statement.md). */
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The in-toto test-result predicate (spec/predicates/test-result.md). */
export const TEST_RESULT_PREDICATE = 'https://in-toto.io/attestation/test-result/v0.1';
/** The suite's own extension field of the predicate: what the test-result fields cannot say. */
export const CONFORMANCE_FORMAT = 'tokenized-stocks-conformance-certificate/3';

/** in-toto ResourceDescriptor (spec/v1/resource_descriptor.md): at least one of uri, digest, content. */
export interface ResourceDescriptor {
  name?: string;
  uri?: string;
  digest?: Record<string, string>;
  annotations?: Record<string, unknown>;
}

/** Checks per outcome, as results.json's `counts` stores them. */
type Counts = OutcomeCounts;

/** The suite's extension of the test-result predicate (in-toto consumers ignore fields they do not know). */
export interface Conformance {
  format: typeof CONFORMANCE_FORMAT;
  suite: { name: string; version: string };
  spec: { version: string };
  status: RunStatus;
  exitCode: number;
  scope: Pick<RunScope, 'profile' | 'signer' | 'archive' | 'interfaces' | 'groups' | 'target' | 'full' | 'notJudged'> & { grep?: string };
  /** Each target as results.json names it, any part that may be a credential masked (maskUrl). */
  target: { baseUrl: string | null; rpcUrl: string | null; embedded: boolean };
  /** When the run finished (the certificate's age is measured from it). */
  date: string;
  totals: Counts;
  /** Counts by spec section (the section of each check's first statement), as results.json's `sections` stores them. */
  sections: Record<string, Counts>;
  /** --samples: answers per read-only question, the window they spread over, the detection power (as results.json records it). */
  sampling?: RunSampling;
  /** Send → visible at "pending", when the run measured it. */
  preconfLatencyMs: { n: number; p50: number; p95: number } | null;
  /** The badge's words and colour; its label says whether the certificate is signed. */
  badge: Omit<Badge, 'label'>;
}

export interface TestResultPredicate {
  result: 'PASSED' | 'WARNED' | 'FAILED';
  configuration: ResourceDescriptor[];
  /** The CI run that produced it, when known. */
  url?: string;
  passedTests: string[];
  warnedTests: string[];
  failedTests: string[];
  /** The suite's extension field: a name no other producer would use (in-toto parsing rules). */
  tokenizedStocksConformance: Conformance;
}

/** One published file, as a subject names it: its name in the report directory and the SHA-256 of its bytes. */
export interface Subject {
  name: string;
  digest: { sha256: string };
}

/** The members of a statement, and no others: a verifier refuses any it does not know. */
export const STATEMENT_KEYS = ['_type', 'subject', 'predicateType', 'predicate'] as const;

export interface Statement {
  _type: typeof STATEMENT_TYPE;
  /** Every file the certified directory publishes beside certificate.json, in the order written. */
  subject: Subject[];
  predicateType: typeof TEST_RESULT_PREDICATE;
  predicate: TestResultPredicate;
}

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Incomplete is never PASSED: only a conformant run is. */
const RESULT_OF: Record<RunStatus, TestResultPredicate['result']> = { conformant: 'PASSED', incomplete: 'WARNED', 'non-conformant': 'FAILED' };

/**
 * A target URL as a certificate names it: the same string as results.json's target (publicUrl,
 * which returns its own output unchanged), so the certificate and the results agree, and a
 * results.json written by hand or by an older version is masked by the same rule.
 */
export function maskUrl(url: string | null): string | null {
  return url === null ? null : publicUrl(url);
}

/** The CI run's address, from what GitHub Actions sets; undefined elsewhere. */
export function ciRunUrl(env: NodeJS.ProcessEnv): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: id, GITHUB_RUN_ATTEMPT: attempt } = env;
  if (!server || !/^https:\/\/[^/\s]+$/.test(server) || !repo || !/^[\w.-]+\/[\w.-]+$/.test(repo) || !id || !/^\d+$/.test(id)) return undefined;
  return `${server}/${repo}/actions/runs/${id}${attempt && /^\d+$/.test(attempt) ? `/attempts/${attempt}` : ''}`;
}

/** Check ids by their stored outcome: one that fails the run is FAILED; advisory and known failures and checks not judged are WARNED; a stale expectation passed. */
function testsOf(doc: ReaderDocument): Pick<TestResultPredicate, 'passedTests' | 'warnedTests' | 'failedTests'> {
  const out = { passedTests: [] as string[], warnedTests: [] as string[], failedTests: [] as string[] };
  for (const r of doc.checks) {
    if (r.outcome === 'failed') out.failedTests.push(r.id);
    else if (r.outcome === 'passed' || r.outcome === 'stale-expectation') out.passedTests.push(r.id);
    else if (r.outcome !== 'skipped') out.warnedTests.push(r.id);
  }
  return out;
}

function configurationOf(doc: ReaderDocument, target: Conformance['target']): ResourceDescriptor[] {
  const { groups, interfaces, signer, archive, full, grep } = doc.scope;
  const out: ResourceDescriptor[] = [
    { name: 'suite', uri: `pkg:npm/${doc.suite.name}@${doc.suite.version}` },
    { name: 'spec', uri: `urn:tokenized-stocks-api-and-rpc:${doc.spec.version}` },
    { name: 'profile', uri: `urn:tokenized-stocks-conformance:profile:${doc.scope.profile}` },
    {
      name: 'scope',
      uri: `urn:tokenized-stocks-conformance:scope:${full ? 'full' : 'partial'}`,
      annotations: { groups, interfaces, signer, archive, ...(grep !== undefined ? { grep } : {}) },
    },
  ];
  for (const [name, url] of [
    ['target:rest', target.baseUrl],
    ['target:rpc', target.rpcUrl],
  ] as const) {
    if (url) out.push({ name, uri: url, annotations: { embedded: target.embedded } });
  }
  return out;
}

/** The subjects of a statement: each published file by name, with the SHA-256 of the exact bytes written. */
export const subjectsOf = (files: ReadonlyArray<readonly [name: string, body: string | Buffer]>): Subject[] =>
  files.map(([name, body]) => ({ name, digest: { sha256: sha256(body) } }));

/**
 * The statement of a run, bound to the exact bytes of the files published with it: `published`
 * lists them (name and body), or is results.json's bytes alone.
 */
export function buildStatement(
  doc: ReaderDocument,
  published: string | Buffer | ReadonlyArray<readonly [name: string, body: string | Buffer]>,
  opts: { url?: string } = {},
): Statement {
  const sections: Conformance['sections'] = Object.fromEntries(doc.sections.map((g) => [g.section, g.counts]));
  const latency = latencyOf(doc.checks);
  const { profile, signer, archive, interfaces, groups, target, full, notJudged, grep } = doc.scope;
  const targets = { baseUrl: maskUrl(doc.target.baseUrl), rpcUrl: maskUrl(doc.target.rpcUrl), embedded: doc.target.embedded };
  const conformance: Conformance = {
    format: CONFORMANCE_FORMAT,
    suite: { name: doc.suite.name, version: doc.suite.version },
    spec: { version: doc.spec.version },
    status: doc.status,
    exitCode: doc.exitCode,
    scope: { profile, signer, archive, interfaces, groups, target, full, notJudged, ...(grep !== undefined ? { grep } : {}) },
    target: targets,
    date: doc.finishedAt,
    totals: doc.counts,
    sections,
    ...(doc.sampling ? { sampling: doc.sampling } : {}),
    preconfLatencyMs: latency?.all ? { n: latency.all.n, p50: latency.all.p50, p95: latency.all.p95 } : null,
    badge: badgeOf(doc),
  };
  return {
    _type: STATEMENT_TYPE,
    subject: subjectsOf(typeof published === 'string' || Buffer.isBuffer(published) ? [['results.json', published]] : published),
    predicateType: TEST_RESULT_PREDICATE,
    predicate: {
      result: RESULT_OF[doc.status],
      configuration: configurationOf(doc, targets),
      ...(opts.url ? { url: opts.url } : {}),
      ...testsOf(doc),
      tokenizedStocksConformance: conformance,
    },
  };
}
