import * as sigstore from '@sigstore/core';
import { readerDocument } from '../../src/verdict/reader';
import Ajv from 'ajv/dist/2020';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { badgeOf, renderBadge } from '../../src/cli/certificate/badge';
import { keyIdOf, loadSigningKey } from '../../src/cli/signing-keys';
import { buildStatement, ciRunUrl, maskUrl, sha256, type Statement, type TestResultPredicate } from '../../src/cli/certificate/statement';
import { verifyCertificate, VerifyError } from '../../src/cli/certificate/verify';
import { type CertifyOptions } from '../../src/cli/certificate/write';
import { countOutcomes, countSections } from '../../src/verdict/outcome';
import { deriveScope, type ScopeFacts } from '../../src/verdict/scope';
import { factsOf } from '../../src/verdict/status';
import type { RunDocument } from '../../src/verdict/document';
import { sealVerdict } from '../../src/verdict/seal';
import { buildRunDocument } from '../../src/verdict/build-document';
import { writeReports } from '../../src/cli/write-reports';
import { ConfigError, loadConfig } from '../../src/cli/config';
import { main } from '../../src/cli/main';
import { redactorFor } from '../support/redactor';
import { startHostile } from '../support/hostile';
import { sink } from '../support/sink';
import type { CheckResult } from '../../src/harness/runner';
import { checkResult, judged, runDocument, FULL_SCOPE } from '../support/documents';

/** A REST check of 2.1, a preconf check with its signer, else a JSON-RPC check of 4.5. */
const result = (id: string, status: CheckResult['status'], over: Partial<CheckResult> = {}): CheckResult =>
  checkResult(id, status, {
    ...(id.startsWith('rest') ? { statements: ['2.1.1'], section: '2.1', needs: ['rest'] } : id.startsWith('preconf') ? { needs: ['rpc', 'signer'] } : {}),
    ...over,
  });

const FULL = FULL_SCOPE;
// What preconf.latency.about-200ms records (suites/preconf/latency.ts), without a timeline.
const LATENCY = {
  latency: { eth_getTransactionCount: { n: 10, p50: 40, p95: 110, max: 150 } },
  latencyJudged: { n: 13, min: 20, p50: 41.5, p95: 120, max: 150, specRefreshMs: 200, boundsMs: { p50: 523, p95: 829 } },
};

function doc(checks: CheckResult[], scope: ScopeFacts = FULL): RunDocument {
  return runDocument(checks, scope, { durationMs: 20_000 });
}

const passing = () => [
  result('rest.a', 'passed'),
  result('rest.b', 'skipped', { cause: 'out-of-scope', outOfScope: { flag: '--nav-max-age', words: 'no --nav-max-age' } }),
  result('rpc.c', 'passed'),
  result('rpc.d', 'passed'),
  result('preconf.latency', 'passed', { level: 'advisory', metrics: LATENCY }),
];

const keys = {
  'ECDSA P-256': generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  Ed25519: generateKeyPairSync('ed25519'),
};
const pem = (k: KeyObject) => k.export({ type: k.type === 'private' ? 'pkcs8' : 'spki', format: 'pem' }).toString();
const signing = (name: keyof typeof keys) => loadSigningKey(pem(keys[name].privateKey), 'test key');

function certified(d: RunDocument, opts: CertifyOptions | true = true): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cert-'));
  writeReports(d, dir, { certify: opts });
  return dir;
}
const readJson = (dir: string, name: string) => JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
const statementOf = (dir: string): Statement => {
  const c = readJson(dir, 'certificate.json');
  return c.payloadType ? JSON.parse(Buffer.from(c.payload, 'base64').toString('utf8')) : c;
};

/** Every leaf of a JSON value: its path and a different value of the same kind. */
function edits(v: unknown, at: Array<string | number> = []): Array<[Array<string | number>, unknown]> {
  if (Array.isArray(v)) return v.length ? v.flatMap((x, i) => edits(x, [...at, i])) : [[at, ['x']]];
  if (v !== null && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => edits(x, [...at, k]));
  const other = typeof v === 'number' ? v + 1 : typeof v === 'boolean' ? !v : typeof v === 'string' ? `${v}x` : 'x';
  return [[at, other]];
}
function edited<T>(v: T, [at, value]: [Array<string | number>, unknown]): T {
  const copy = structuredClone(v) as Record<string | number, unknown>;
  let o = copy;
  for (const k of at.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
  if (at.length === 0) return value as T;
  o[at[at.length - 1]] = value;
  return copy as T;
}

/** In-toto Statement v1 with the test-result predicate v0.1, as the in-toto/attestation specs state them. */
const IN_TOTO_TEST_RESULT = {
  type: 'object',
  required: ['_type', 'subject', 'predicateType', 'predicate'],
  properties: {
    _type: { const: 'https://in-toto.io/Statement/v1' },
    subject: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['digest'],
        properties: {
          name: { type: 'string' },
          digest: { type: 'object', minProperties: 1, additionalProperties: { type: 'string', pattern: '^[0-9a-f]+$' } },
        },
      },
    },
    predicateType: { const: 'https://in-toto.io/attestation/test-result/v0.1' },
    predicate: { $ref: '#/$defs/predicate' },
  },
  $defs: {
    descriptor: {
      type: 'object',
      anyOf: [{ required: ['uri'] }, { required: ['digest'] }, { required: ['content'] }],
      properties: {
        name: { type: 'string' },
        uri: { type: 'string', pattern: '^[a-z][a-z0-9+.-]*:' },
        digest: { type: 'object' },
        content: { type: 'string' },
        annotations: { type: 'object' },
      },
    },
    predicate: {
      type: 'object',
      required: ['result', 'configuration'],
      properties: {
        result: { enum: ['PASSED', 'WARNED', 'FAILED'] },
        configuration: { type: 'array', items: { $ref: '#/$defs/descriptor' } },
        url: { type: 'string', pattern: '^https?://' },
        passedTests: { type: 'array', items: { type: 'string' } },
        warnedTests: { type: 'array', items: { type: 'string' } },
        failedTests: { type: 'array', items: { type: 'string' } },
      },
    },
  },
};
const ajv = new Ajv({ allErrors: true, strict: false });
const validStatement = ajv.compile(IN_TOTO_TEST_RESULT);
const validPredicate = ajv.compile({ ...IN_TOTO_TEST_RESULT.$defs.predicate, $defs: IN_TOTO_TEST_RESULT.$defs });

describe('certificate: an in-toto test-result statement', () => {
  it("is an in-toto Statement v1 about results.json, with the test-result predicate and the suite's extension", () => {
    const dir = certified(doc(passing()));
    const st = readJson(dir, 'certificate.json');
    expect(validStatement(st) ? [] : validStatement.errors).toEqual([]);
    // Every file of the directory but the certificate itself, by SHA-256.
    expect(st.subject).toEqual(
      ['results.json', 'junit.xml', 'summary.md', 'report.html', 'predicate.json', 'badge.svg'].map((name) => ({
        name,
        digest: { sha256: sha256(readFileSync(path.join(dir, name))) },
      })),
    );
    expect(st.predicate).toMatchObject({ result: 'PASSED', passedTests: ['rest.a', 'rpc.c', 'rpc.d', 'preconf.latency'], warnedTests: [], failedTests: [] });
    expect(st.predicate.url).toBeUndefined();
    expect(st.predicate.configuration).toEqual([
      { name: 'suite', uri: 'pkg:npm/tokenized-stocks-conformance@0.1.0' },
      { name: 'spec', uri: 'urn:tokenized-stocks-api-and-rpc:1.0.0' },
      { name: 'profile', uri: 'urn:tokenized-stocks-conformance:profile:dedicated' },
      {
        name: 'scope',
        uri: 'urn:tokenized-stocks-conformance:scope:full',
        annotations: { groups: ['rest', 'rpc', 'cross', 'preconf'], interfaces: ['rest', 'rpc'], signer: true, archive: false },
      },
      { name: 'target:rest', uri: 'https://api.example', annotations: { embedded: false } },
      { name: 'target:rpc', uri: 'https://rpc.example', annotations: { embedded: false } },
    ]);
    expect(st.predicate.tokenizedStocksConformance).toMatchObject({
      suite: { name: 'tokenized-stocks-conformance', version: '0.1.0' },
      spec: { version: '1.0.0' },
      status: 'conformant',
      exitCode: 0,
      scope: { profile: 'dedicated', signer: true, archive: false, interfaces: ['rest', 'rpc'], full: true },
      target: { baseUrl: 'https://api.example', rpcUrl: 'https://rpc.example', embedded: false },
      date: '2026-01-01T00:00:20.000Z',
      totals: { passed: 4, failed: 0, 'not-judged': 0, blocked: 0, 'known-failure': 0, warning: 0, 'stale-expectation': 0, skipped: 1 },
      sections: {
        '2.1': { passed: 1, failed: 0, 'not-judged': 0, blocked: 0, 'known-failure': 0, warning: 0, 'stale-expectation': 0, skipped: 1 },
        '4.5': { passed: 3, failed: 0, 'not-judged': 0, blocked: 0, 'known-failure': 0, warning: 0, 'stale-expectation': 0, skipped: 0 },
      },
      preconfLatencyMs: { n: 13, p50: 41.5, p95: 120 },
      badge: { message: 'conformant · dedicated · 4/4 · rpc.example · 2026-01-01' },
    });
  });

  it('predicate.json is the predicate alone, as actions/attest takes it (predicate-path)', () => {
    const dir = certified(doc(passing()), { url: 'https://github.com/o/r/actions/runs/42' });
    const predicate = readJson(dir, 'predicate.json');
    expect(validPredicate(predicate) ? [] : validPredicate.errors).toEqual([]);
    expect(predicate).toEqual(statementOf(dir).predicate);
    expect(predicate.url).toBe('https://github.com/o/r/actions/runs/42');
  });

  it.each<[string, CheckResult[], string, Partial<TestResultPredicate>]>([
    [
      'a required failure',
      [result('rest.a', 'passed'), result('rpc.c', 'failed'), result('rpc.d', 'failed', { level: 'advisory' })],
      'FAILED',
      { passedTests: ['rest.a'], warnedTests: ['rpc.d'], failedTests: ['rpc.c'] },
    ],
    [
      'incomplete is never PASSED',
      [result('rest.a', 'passed'), result('rpc.c', 'inconclusive')],
      'WARNED',
      { passedTests: ['rest.a'], warnedTests: ['rpc.c'], failedTests: [] },
    ],
    [
      'conformant with an advisory failure',
      [result('rest.a', 'passed'), result('rpc.c', 'failed', { level: 'advisory' })],
      'PASSED',
      { passedTests: ['rest.a'], warnedTests: ['rpc.c'], failedTests: [] },
    ],
  ])('result: %s', (_what, checks, outcome, tests) => {
    const p = buildStatement(readerDocument(doc(checks)), '{}').predicate;
    expect(p.result).toBe(outcome);
    expect(p).toMatchObject(tests);
  });

  it.each<[string | null, string | null]>([
    ['https://rpc.example', 'https://rpc.example'],
    ['https://rpc.example/v1/rpc', 'https://rpc.example/v1/rpc'],
    ['https://rpc.example/v2/***', 'https://rpc.example/v2/***'],
    ['https://rpc.example/v2/abcdefghijklmnopqrstuvwxyzABCDEF', 'https://rpc.example/v2/***'],
    ['https://rpc.example/rpc?apikey=***', 'https://rpc.example/rpc?apikey=***'],
    ['https://rpc.example:8443/a/%2A%2A%2A/b', 'https://rpc.example:8443/a/***/b'],
    ['not a url', '***'],
    [null, null],
  ])('target %s is named %s: the rule results.json uses, so its own output is kept', (url, named) => {
    expect(maskUrl(url)).toBe(named);
  });

  it('the certificate names each target exactly as results.json does: a digitless path key and a query masked in both', () => {
    const baseUrl = 'https://api.example/tenant/abcdefghijklmnopqrstuvwxyzABCDEF?region=eu';
    const rpcUrl = 'https://rpc.example/v2/ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvu/rpc?chain=base-sepolia';
    const cfg = loadConfig(['--base-url', baseUrl, '--rpc-url', rpcUrl], {});
    const run = {
      suite: { name: 'tokenized-stocks-conformance', version: '0.0.0' },
      cfg,
      target: { baseUrl: cfg.baseUrl, rpcUrl: cfg.rpcUrl },
      startedAt: new Date(0),
      finishedAt: new Date(1000),
      results: passing().map(judged),
    };
    const dir = certified(buildRunDocument(run, redactorFor(cfg)));
    const results = readJson(dir, 'results.json').target;
    expect([results.baseUrl, results.rpcUrl]).toEqual(['https://api.example/tenant/***?region=***', 'https://rpc.example/v2/***/rpc?chain=***']);
    const predicate = statementOf(dir).predicate as TestResultPredicate;
    expect(predicate.tokenizedStocksConformance.target).toMatchObject({ baseUrl: results.baseUrl, rpcUrl: results.rpcUrl });
    expect(predicate.configuration.filter((c) => c.name?.startsWith('target:')).map((c) => c.uri)).toEqual([results.baseUrl, results.rpcUrl]);
    for (const file of ['results.json', 'certificate.json', 'predicate.json', 'summary.md', 'report.html'])
      expect([file, readFileSync(path.join(dir, file), 'utf8')]).not.toEqual([
        file,
        expect.stringMatching(/abcdefghijklmnop|ZYXWVUTSRQ|base-sepolia|region=eu/),
      ]);
  });

  it('the CI run URL comes from what GitHub Actions sets, only when it is well-formed', () => {
    const gh = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'acme/nodes', GITHUB_RUN_ID: '123', GITHUB_RUN_ATTEMPT: '2' };
    expect(ciRunUrl(gh)).toBe('https://github.com/acme/nodes/actions/runs/123/attempts/2');
    expect(ciRunUrl({ ...gh, GITHUB_RUN_ATTEMPT: undefined })).toBe('https://github.com/acme/nodes/actions/runs/123');
    expect(ciRunUrl({ ...gh, GITHUB_REPOSITORY: 'acme/nodes/../x y' })).toBeUndefined();
    expect(ciRunUrl({})).toBeUndefined();
  });
});

describe('verify-certificate', () => {
  it('round-trips unsigned: self-reported, said in the badge, summary.md and report.html', () => {
    const dir = certified(doc(passing()));
    const v = verifyCertificate(dir);
    expect(v.differences).toEqual([]);
    expect(v.signature).toBeNull();
    expect(v.verdict).toBe('self-reported');
    expect(readFileSync(path.join(dir, 'badge.svg'), 'utf8')).toContain(
      '<title>self-reported conformance claim: conformant · dedicated · 4/4 · rpc.example · 2026-01-01</title>',
    );
    expect(readFileSync(path.join(dir, 'summary.md'), 'utf8')).toMatch(/## Certificate\n\ncertificate\.json is self-reported: an unsigned in-toto statement\./);
    expect(readFileSync(path.join(dir, 'report.html'), 'utf8')).toContain('<section id="certificate"><h2>Certificate</h2><p>certificate.json is self-reported');
  });

  it('--only rest with a key: the certificate names one interface and no pre-confirmed state, and round-trips', () => {
    const checks = passing().map((r): CheckResult =>
      r.id.startsWith('rest.')
        ? r
        : {
            ...r,
            status: 'skipped',
            cause: 'deselected',
            reason: 'not selected (--only rest)',
            outOfScope: { flag: '--only', words: '--only rest' },
            metrics: undefined,
          },
    );
    const dir = certified(doc(checks, { ...FULL, only: ['rest'] }));
    const c = statementOf(dir).predicate.tokenizedStocksConformance;
    expect(c.scope).toMatchObject({ groups: ['rest'], interfaces: ['rest'], signer: false, full: false });
    expect(c.preconfLatencyMs).toBeNull();
    expect(c.badge.message).toBe('conformant · rest only · dedicated · 1/1 · api.example · 2026-01-01');
    expect(verifyCertificate(dir).differences).toEqual([]);
  });

  describe.each(Object.keys(keys) as Array<keyof typeof keys>)('signed with %s', (name) => {
    const pub = keys[name].publicKey;
    const dir = certified(doc([...passing(), result('rpc.e', 'failed', { level: 'advisory' })]), { signKey: signing(name) });

    it('is a DSSE envelope of the statement, its keyid the SHA-256 of the public key, and it verifies', () => {
      const env = readJson(dir, 'certificate.json');
      expect(Object.keys(env).sort()).toEqual(['payload', 'payloadType', 'signatures']);
      expect(env.payloadType).toBe('application/vnd.in-toto+json');
      expect(env.signatures).toEqual([{ keyid: `sha256:${sha256(pub.export({ type: 'spki', format: 'der' }))}`, sig: expect.any(String) }]);
      expect(validStatement(statementOf(dir)) ? [] : validStatement.errors).toEqual([]);
      const v = verifyCertificate(dir, { key: pub });
      expect(v.differences).toEqual([]);
      expect(v.signature).toEqual({ keyid: keyIdOf(pub), checked: true });
      expect(v.verdict).toBe('verified');
      expect(readFileSync(path.join(dir, 'badge.svg'), 'utf8')).toContain(
        '<title>tokenized-stocks conformance: conformant · dedicated · 4/5 · rpc.example · 2026-01-01</title>',
      );
      expect(readFileSync(path.join(dir, 'summary.md'), 'utf8')).toContain(
        `certificate.json is an in-toto statement in a DSSE envelope whose signature names the key ${keyIdOf(pub)}`,
      );
    });

    it('is verified by an implementation the suite did not write (@sigstore/core: DSSE PAE and signature check)', () => {
      const env = readJson(dir, 'certificate.json');
      const signed = sigstore.dsse.preAuthEncoding(env.payloadType, Buffer.from(env.payload, 'base64'));
      const ok = sigstore.crypto.verify(
        signed,
        sigstore.crypto.createPublicKey(pem(pub)),
        Buffer.from(env.signatures[0].sig, 'base64'),
        name === 'Ed25519' ? undefined : 'sha256',
      );
      expect(ok).toBe(true);
      expect(
        sigstore.crypto.verify(
          Buffer.concat([signed, Buffer.from(' ')]),
          pub,
          Buffer.from(env.signatures[0].sig, 'base64'),
          name === 'Ed25519' ? undefined : 'sha256',
        ),
      ).toBe(false);
    });

    it('is rejected with another key, and a bare statement is rejected when --key asks for a signature', () => {
      const other = generateKeyPairSync('ed25519').publicKey;
      expect(verifyCertificate(dir, { key: other }).differences).toEqual([
        expect.stringMatching(/^signature: no signature by the key given \(its keyid is sha256:[0-9a-f]{64}; the envelope names sha256:[0-9a-f]{64}\)$/),
      ]);
      const copy = mkdtempSync(path.join(tmpdir(), 'cert-'));
      cpSync(dir, copy, { recursive: true });
      writeFileSync(path.join(copy, 'certificate.json'), JSON.stringify(statementOf(dir)));
      expect(verifyCertificate(copy, { key: pub }).differences).toContain('certificate.json is not signed (self-reported), but --key asks for a signature');
    });

    it('every single-field edit of results.json is rejected', () => {
      const results = readJson(dir, 'results.json');
      const all = edits(results);
      expect(all.length).toBeGreaterThan(60);
      for (const e of all) {
        const copy = mkdtempSync(path.join(tmpdir(), 'cert-'));
        cpSync(dir, copy, { recursive: true });
        writeFileSync(path.join(copy, 'results.json'), JSON.stringify(edited(results, e), null, 2) + '\n');
        let why: string[];
        try {
          why = verifyCertificate(copy, { key: pub }).differences;
        } catch (err) {
          why = [(err as Error).message];
        }
        if (why.length === 0) throw new Error(`an edit of results.json ${e[0].join('.')} was accepted`);
        expect(why[0]).toMatch(
          /^results\.json: SHA-256 is [0-9a-f]{64}, the certificate says [0-9a-f]{64} \(results\.json changed after it was certified\)$|made by suite version/,
        );
      }
    });

    it('every single-field edit of the statement is rejected (the signature no longer verifies)', () => {
      const env = readJson(dir, 'certificate.json');
      const statement = statementOf(dir);
      const all = edits(statement);
      expect(all.length).toBeGreaterThan(40);
      for (const e of all) {
        const copy = mkdtempSync(path.join(tmpdir(), 'cert-'));
        cpSync(dir, copy, { recursive: true });
        writeFileSync(
          path.join(copy, 'certificate.json'),
          JSON.stringify({ ...env, payload: Buffer.from(JSON.stringify(edited(statement, e))).toString('base64') }),
        );
        let why: string[];
        try {
          why = verifyCertificate(copy, { key: pub }).differences;
        } catch (err) {
          why = [(err as Error).message];
        }
        if (why.length === 0) throw new Error(`an edit of the statement at ${e[0].join('.')} was accepted`);
        expect(why[0]).toMatch(/^signature: the signature does not verify with the key given|is not a certificate of this suite|made by suite version/);
      }
    });

    it('every single-field edit of the badge is rejected', () => {
      const c = statementOf(dir).predicate.tokenizedStocksConformance;
      for (const e of edits(c.badge)) {
        const copy = mkdtempSync(path.join(tmpdir(), 'cert-'));
        cpSync(dir, copy, { recursive: true });
        writeFileSync(path.join(copy, 'badge.svg'), renderBadge(edited(c.badge, e), true));
        // A digest that fails is the one reason: nothing is parsed or rendered past it.
        expect(verifyCertificate(copy, { key: pub }).differences).toEqual([
          expect.stringMatching(/^badge\.svg: SHA-256 is [0-9a-f]{64}, the certificate says [0-9a-f]{64} \(badge\.svg changed after it was certified\)$/),
        ]);
      }
    });
  });

  it("the forgery: failures marked passed and everything recomputed with the suite's own functions is rejected without the private key", () => {
    // A non-conformant run: 19 of 78 judged checks passed.
    const checks = Array.from({ length: 78 }, (_, i) =>
      result(`rpc.check-${i}`, i < 19 ? 'passed' : 'failed', { expected: { kind: 'hex', value: '0x1' }, actual: { kind: 'hex', value: '0x2' } }),
    );
    const d = doc(checks, { ...FULL, baseUrl: undefined, signer: false });
    expect(badgeOf(d).message).toBe('non-conformant · dedicated · 19/78 · rpc.example · 2026-01-01');
    const key = signing('ECDSA P-256');
    const dir = certified(d, { signKey: key });
    expect(verifyCertificate(dir, { key: keys['ECDSA P-256'].publicKey }).differences).toEqual([]);

    const forged = readJson(dir, 'results.json') as RunDocument;
    forged.checks = forged.checks.map((r) =>
      // Forged whole: a pass that kept its failure's `violated` or cause would contradict itself (rejected, signed or not).
      r.status === 'failed'
        ? judged({
            ...r,
            outcome: undefined,
            effect: undefined,
            status: 'passed',
            reason: '',
            expected: undefined,
            actual: undefined,
            violated: undefined,
            cause: undefined,
          })
        : r,
    );
    forged.scope = deriveScope(forged.checks, {
      only: forged.scope.groups,
      profile: 'dedicated',
      embedded: false,
      rpcUrl: forged.target.rpcUrl,
      baseUrl: null,
      signer: false,
      archive: false,
    });
    const { status, statusReasons, exitCode, headline, rootCauses } = sealVerdict(forged.checks, factsOf(forged), () => forged.scope);
    Object.assign(forged, {
      status,
      statusReasons,
      exitCode,
      headline,
      rootCauses,
      counts: countOutcomes(forged.checks),
      sections: countSections(forged.checks),
    });
    // Written by the suite's own writer: unsigned, and signed with a key of the forger's.
    for (const opts of [{}, { signKey: loadSigningKey(pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey), 'forger') }]) {
      writeReports(forged, dir, { certify: opts });
      expect(statementOf(dir).predicate.tokenizedStocksConformance.badge.message).toBe('conformant · rpc only · dedicated · 78/78 · rpc.example · 2026-01-01');
      // Self-consistent, which is all an unsigned certificate can be ...
      expect(verifyCertificate(dir).differences).toEqual([]);
      // ... and rejected by whoever holds the real public key.
      const why = verifyCertificate(dir, { key: keys['ECDSA P-256'].publicKey }).differences;
      expect(why).toEqual([
        opts.signKey
          ? expect.stringMatching(/^signature: no signature by the key given/)
          : 'certificate.json is not signed (self-reported), but --key asks for a signature',
      ]);
    }
  });

  it('the forged results.json beside the real signed certificate is rejected by its digest, unread', () => {
    const failing = [
      ...passing().slice(0, 2),
      result('rpc.c', 'failed', { expected: { kind: 'hex', value: '0x1' }, actual: { kind: 'hex', value: '0x2' } }),
      result('rpc.d', 'passed'),
    ];
    const dir = certified(doc(failing), { signKey: signing('Ed25519') });
    const file = path.join(dir, 'results.json');
    const d = JSON.parse(readFileSync(file, 'utf8')) as RunDocument;
    // Forged whole, so that results.json still keeps its contract (outcome, effect, counts, status and exit code agree).
    const { violated: _violated, ...forged } = d.checks[2];
    d.checks[2] = { ...forged, status: 'passed', outcome: 'passed', effect: 'none', reason: '' };
    Object.assign(d, { status: 'conformant', statusReasons: [], exitCode: 0, counts: { ...d.counts, failed: 0, passed: d.counts.passed + 1 } });
    writeFileSync(file, JSON.stringify(d, null, 2) + '\n');
    // Size and digest before parsing: the forgery is not read further, so no reason derived from its content follows.
    expect(verifyCertificate(dir, { key: keys.Ed25519.publicKey }).differences).toEqual([
      expect.stringMatching(/^results\.json: SHA-256 is [0-9a-f]{64}, the certificate says [0-9a-f]{64} \(results\.json changed after it was certified\)$/),
    ]);
  });

  it('a status its own counts contradict breaks the results.json contract: rejected before anything is re-derived', () => {
    const d = doc([result('rest.a', 'passed'), result('rpc.c', 'failed'), result('preconf.x', 'passed')]);
    const dir = certified({ ...d, status: 'conformant', statusReasons: [], exitCode: 0 });
    expect(verifyCertificate(dir).differences).toEqual([
      'results.json does not match its schema: /counts/failed must be equal to constant [0] (got 1)',
      'results.json does not match its schema: (root) must match "then" schema (got an object)',
    ]);
  });

  it('a scope its checks and flags do not give is caught, even with every report made to agree with it (a partial run passed off as full)', () => {
    const d = doc([result('rpc.a', 'passed'), result('rpc.b', 'passed')], { ...FULL, baseUrl: undefined, signer: false });
    expect(d.scope.full).toBe(false);
    const scope = { ...d.scope, full: true, interfaces: ['rest' as const, 'rpc' as const], signer: true, leftOut: [], notJudged: [] };
    const { status, statusReasons, exitCode, headline, rootCauses } = sealVerdict(d.checks, factsOf(d), () => scope);
    const forged = { ...d, scope, status, statusReasons, exitCode, headline, rootCauses };
    expect(badgeOf(forged).message).toBe('conformant · dedicated · 2/2 · rpc.example · 2026-01-01');
    const why = verifyCertificate(certified(forged)).differences;
    expect(why).toContain('results.json scope full: says true, results.json gives false');
  });

  it("an effect its check's own facts contradict is caught, even with status, counts and every report made to agree with it", () => {
    const d = doc([result('rest.a', 'passed'), result('rpc.c', 'inconclusive', { cause: 'throttled' }), result('preconf.x', 'passed')]);
    // The stored effect of a required check not judged edited to none; everything derived from the stored effects made to agree.
    const checks = d.checks.map((c) => (c.id === 'rpc.c' ? { ...c, effect: 'none' as const } : c));
    const { status, statusReasons, exitCode, headline, rootCauses } = sealVerdict(checks, factsOf(d), () => d.scope);
    const forged = { ...d, checks, status, statusReasons, exitCode, headline, rootCauses, counts: countOutcomes(checks), sections: countSections(checks) };
    expect(forged.status).toBe('conformant');
    const why = verifyCertificate(certified(forged)).differences;
    expect(why).toContain('results.json checks[1] (rpc.c) effect: says none, its facts give incomplete');
    expect(why).toContain('results.json status: says "conformant", results.json gives "incomplete"');
  });

  it('a status that its own checks contradict is caught even when the hash is made to match (and the counts forged to keep the contract)', () => {
    const d = doc([result('rest.a', 'passed'), result('rpc.c', 'failed'), result('preconf.x', 'passed')]);
    const dir = certified({ ...d, status: 'conformant', statusReasons: [], exitCode: 0, counts: { ...d.counts, failed: 0 } });
    expect(verifyCertificate(dir).differences).toEqual([
      'results.json status: says "conformant", results.json gives "non-conformant"',
      'results.json statusReasons: says [], results.json gives ["1 required check failed"]',
      'results.json exitCode: says 0, results.json gives 1',
      'results.json counts.failed: says 0, results.json gives 1',
      'certificate.json predicate.result: says "PASSED", results.json gives "FAILED"',
      'certificate.json predicate.tokenizedStocksConformance.status: says "conformant", results.json gives "non-conformant"',
      'certificate.json predicate.tokenizedStocksConformance.exitCode: says 0, results.json gives 1',
      'certificate.json predicate.tokenizedStocksConformance.totals.failed: says 0, results.json gives 1',
      'certificate.json predicate.tokenizedStocksConformance.badge.message: says "conformant · dedicated · 2/2 · rpc.example · 2026-01-01", results.json gives "non-conformant · dedicated · 2/3 · rpc.example · 2026-01-01"',
      'certificate.json predicate.tokenizedStocksConformance.badge.color: says "#2c9a48", results.json gives "#cf3a2b"',
      'junit.xml does not say what the certificate and results.json say ("self-reported conformance claim: non-conformant · dedicated · 2/3 · rpc.example · 2026-01-01")',
      'summary.md does not say what the certificate and results.json say ("self-reported conformance claim: non-conformant · dedicated · 2/3 · rpc.example · 2026-01-01")',
      'report.html does not say what the certificate and results.json say ("self-reported conformance claim: non-conformant · dedicated · 2/3 · rpc.example · 2026-01-01")',
      'predicate.json does not say what the certificate and results.json say ("self-reported conformance claim: non-conformant · dedicated · 2/3 · rpc.example · 2026-01-01")',
      'badge.svg does not say what the certificate and results.json say ("self-reported conformance claim: non-conformant · dedicated · 2/3 · rpc.example · 2026-01-01")',
    ]);
  });

  it('--target: the certificate must be about that endpoint (origins compared)', () => {
    const dir = certified(doc(passing(), { ...FULL, rpcUrl: 'https://rpc.example/v2/***' }));
    expect(verifyCertificate(dir, { target: 'https://rpc.example/v2/MYKEY' }).differences).toEqual([]);
    expect(verifyCertificate(dir, { target: 'https://api.example' }).differences).toEqual([]);
    expect(verifyCertificate(dir, { target: 'https://rpc.other.example' }).differences).toEqual([
      'target: the certificate is about https://api.example and https://rpc.example, not https://rpc.other.example',
    ]);
  });

  it('--target: an endpoint the run was given but whose interface it did not judge is not what the certificate is about', () => {
    // --only rpc with a --base-url given: the REST checks deselected, the REST URL recorded.
    const deselected = { cause: 'deselected' as const, outOfScope: { flag: '--only' as const, words: '--only rpc' } };
    const dir = certified(doc([result('rest.a', 'skipped', deselected), result('rpc.c', 'passed'), result('rpc.d', 'passed')], { ...FULL, only: ['rpc'] }));
    expect(verifyCertificate(dir, { target: 'https://rpc.example' }).differences).toEqual([]);
    expect(verifyCertificate(dir, { target: 'https://api.example' }).differences).toEqual([
      "target: the certificate is about https://rpc.example, not https://api.example (the run was given https://api.example, but its interface was outside the run's scope)",
    ]);
  });

  it('--max-age: an old certificate is rejected', () => {
    const dir = certified(doc(passing()));
    const finished = Date.parse('2026-01-01T00:00:20.000Z');
    expect(verifyCertificate(dir, { maxAgeSec: 3600, now: new Date(finished + 1800_000) }).differences).toEqual([]);
    expect(verifyCertificate(dir, { maxAgeSec: 3600, now: new Date(finished + 3 * 86400_000) }).differences).toEqual([
      'age: the run finished 2026-01-01T00:00:20.000Z, 72 h ago, older than --max-age (60 min)',
    ]);
  });

  it('refuses a directory without a certificate', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cert-'));
    writeReports(doc(passing()), dir);
    expect(() => verifyCertificate(dir)).toThrow(VerifyError);
    expect(() => verifyCertificate(dir)).toThrow(/certificate\.json not found/);
  });
});

describe('conformance verify-certificate (the subcommand)', () => {
  const run = async (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const out = sink();
    const err = sink();
    const code = await main(['verify-certificate', ...argv], env, { out: out.stream, err: err.stream });
    return { code, out: out.text(), err: err.text() };
  };
  const keyFile = (k: KeyObject) => {
    const f = path.join(mkdtempSync(path.join(tmpdir(), 'key-')), 'key.pem');
    writeFileSync(f, pem(k));
    return f;
  };

  it('exit 0 only when verified with --key (saying so); 1 rejected (saying why); 2 bad invocation, or no key: not verified', async () => {
    const dir = certified(doc(passing()), { signKey: signing('Ed25519') });
    const ok = await run([dir, '--key', keyFile(keys.Ed25519.publicKey)]);
    expect(ok).toMatchObject({ code: 0, err: '' });
    expect(ok.out).toMatch(
      /^certified status: conformant\ncertificate VERIFIED: signed by sha256:[0-9a-f]{64}, signature checked with --key; 6 files covered, each matching its SHA-256 \(results\.json [0-9a-f]{64}\), badge "conformant · dedicated · 4\/4 · rpc\.example · 2026-01-01"\n$/,
    );
    const noKey = await run([dir]);
    expect(noKey).toMatchObject({ code: 2, out: '' });
    expect(noKey.err).toMatch(
      /^conformance verify-certificate: not verified: no key given \(certificate\.json is an envelope naming the key sha256:[0-9a-f]{64}; signature not checked\)/,
    );
    const bad = await run([dir, '--key', keyFile(keys['ECDSA P-256'].publicKey)]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/^certificate REJECTED: 1 reason\n {2}- signature: no signature by the key given/);
    for (const argv of [
      [],
      [dir, dir],
      [dir, '--key', '/nonexistent.pem'],
      [dir, '--max-age', 'soon'],
      [dir, '--base-url', 'https://x.example'],
      [dir, '--bogus'],
      [path.join(dir, 'nothing-here'), '--key', keyFile(keys.Ed25519.publicKey)],
    ]) {
      const r = await run(argv);
      expect([argv, r.code]).toEqual([argv, 2]);
      expect(r.err).toMatch(/^conformance verify-certificate: /);
    }
    expect((await run([dir, '--key', keyFile(keys.Ed25519.privateKey)])).code).toBe(0);
  });

  it('a self-reported certificate: exit 1 unless --allow-self-reported, and then every verdict line says self-reported', async () => {
    const dir = certified(doc(passing()));
    const refused = await run([dir]);
    expect(refused).toMatchObject({ code: 1, err: '' });
    expect(refused.out).toMatch(/^certificate NOT VERIFIED: self-reported \(not signed\): its files agree with the statement, but nobody vouches/);
    const allowed = await run([dir, '--allow-self-reported']);
    expect(allowed).toMatchObject({ code: 0, err: '' });
    expect(allowed.out).toMatch(
      /^certified status: conformant\ncertificate SELF-REPORTED, not verified \(accepted with --allow-self-reported\): not signed, so nobody vouches for who ran the suite; 6 files covered/,
    );
    expect(allowed.out).not.toMatch(/\bsigned by\b|VERIFIED/);
    // --key asks for a signature: an unsigned certificate is rejected, --allow-self-reported or not.
    const withKey = await run([dir, '--allow-self-reported', '--key', keyFile(keys.Ed25519.publicKey)]);
    expect(withKey.code).toBe(1);
    expect(withKey.out).toMatch(
      /^certificate REJECTED \(self-reported: not signed\): 1 reason\n {2}- certificate\.json is not signed \(self-reported\), but --key asks for a signature\n$/,
    );
    // A signed one without --key, accepted as self-reported: the signature is said not checked, never "signed by".
    const signed = certified(doc(passing()), { signKey: signing('Ed25519') });
    const unchecked = await run([signed, '--allow-self-reported']);
    expect(unchecked.code).toBe(0);
    expect(unchecked.out).toMatch(
      /^certified status: conformant\ncertificate SELF-REPORTED, not verified \(accepted with --allow-self-reported\): signature not checked \(no --key; the envelope names sha256:[0-9a-f]{64}\)/,
    );
    expect(unchecked.out).not.toMatch(/\bsigned by\b|VERIFIED/);
  });

  it('a certificate naming another subject is rejected, and nothing it says reaches the terminal as escapes', async () => {
    const dir = certified(doc(passing()));
    const file = path.join(dir, 'certificate.json');
    const statement = JSON.parse(readFileSync(file, 'utf8')) as Statement;
    const forged = '\u001b[2K\rcertificate matches (SIGNED by ACME, signature verified with --key)\u001b[8m';
    writeFileSync(file, JSON.stringify({ ...statement, subject: [{ name: 'evil', digest: { sha256: forged } }, ...statement.subject] }));
    const r = await run([dir]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('subject: "evil" is not a file this suite publishes');
    expect(r.out + r.err).not.toMatch(/[\u001b\r]/);
  });

  it('--live refuses a certified target it cannot dial: a masked URL without --rpc-url, or another origin', async () => {
    const dir = certified(doc(passing(), { ...FULL, baseUrl: undefined, rpcUrl: 'https://rpc.example/v2/***' }));
    const masked = await run([dir, '--allow-self-reported', '--live']);
    expect(masked.code).toBe(2);
    expect(masked.err).toContain(
      '--live: the certificate names the target as https://rpc.example/v2/***: give --rpc-url (or RPC_URL) (with its credentials) to re-check it',
    );
    const other = await run([dir, '--allow-self-reported', '--live'], { RPC_URL: 'https://elsewhere.example/v2/KEY' });
    expect(other.code).toBe(2);
    expect(other.err).toContain('--live: --rpc-url (or RPC_URL) has origin https://elsewhere.example; the certificate is about https://rpc.example');
    expect(other.err + other.out).not.toContain('KEY');
  });
});

describe("--live sends the verifier's credentials only where the verifier points it", () => {
  it('a certified URL dialled as written gets none of the configured headers', async () => {
    const server = await startHostile(() => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x1' }) }));
    try {
      const real = (id: string) => result(id, 'passed');
      const dir = certified(doc([real('rpc.envelope.http-200'), real('rpc.envelope.jsonrpc-version')], { ...FULL, baseUrl: undefined, rpcUrl: server.origin }));
      const out = sink();
      await main(
        ['verify-certificate', dir, '--allow-self-reported', '--live'],
        { HEADERS: 'Authorization: Bearer VERIFIER-SECRET-123' },
        { out: out.stream, err: sink().stream },
      );
      expect(server.seen.length).toBeGreaterThan(0); // it did dial the certified URL
      expect(server.seen.map((r) => r.headers.authorization)).toEqual(server.seen.map(() => undefined));
    } finally {
      await server.close();
    }
  });
});

describe('--sign-key', () => {
  it('from a file or the environment; the flag refused without --certify; refused when it is no usable key; never echoed', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'key-')), 'k.pem');
    const text = pem(keys.Ed25519.privateKey);
    writeFileSync(file, text);
    expect(loadConfig(['--certify', '--sign-key', file], {}).signKey?.keyid).toBe(keyIdOf(keys.Ed25519.publicKey));
    expect(loadConfig(['--certify'], { CERT_SIGN_KEY_FILE: file }).signKey?.keyid).toBe(keyIdOf(keys.Ed25519.publicKey));
    expect(loadConfig(['--certify'], { CERT_SIGN_KEY: text }).signKey?.keyid).toBe(keyIdOf(keys.Ed25519.publicKey));
    expect(() => loadConfig(['--sign-key', file], {})).toThrow(/add --certify/);
    // From the environment, it waits for the runs that certify.
    expect(loadConfig([], { CERT_SIGN_KEY: text }).signKey).toBeUndefined();
    expect(loadConfig([], { CERT_SIGN_KEY: 'not a key at all' }).signKey).toBeUndefined();
    expect(() => loadConfig(['--certify', '--sign-key', file], { CERT_SIGN_KEY: text })).toThrow(/both set/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    const tries: Array<[NodeJS.ProcessEnv, RegExp]> = [
      [{ CERT_SIGN_KEY: 'garbage-key-material-0123456789' }, /^CERT_SIGN_KEY: not a PEM private key \(value not shown\)$/],
      [{ CERT_SIGN_KEY: pem(rsa) }, /^CERT_SIGN_KEY: a rsa key; use an ECDSA P-256 or Ed25519 key$/],
    ];
    for (const [env, why] of tries) {
      expect(() => loadConfig(['--certify'], env)).toThrow(ConfigError);
      expect(() => loadConfig(['--certify'], env)).toThrow(why);
    }
  });

  it("the key is registered with the run's redactor: neither the PEM nor any line of it can be printed", () => {
    const k = signing('ECDSA P-256');
    const redactor = redactorFor({ ...loadConfig([], {}), signKey: k });
    const line = k.pem.split('\n')[1];
    expect(redactor.text(`key: ${k.pem}`)).not.toContain(line);
    expect(redactor.text(`oops ${line} oops`)).toBe('oops *** oops');
  });
});

describe('badge', () => {
  const badge = (checks: CheckResult[], scope: ScopeFacts = FULL) => badgeOf(doc(checks, scope)).message;
  const rpcOnly = [result('rpc.c', 'passed'), result('preconf.x', 'passed')];
  // As results.json lists a run: the checks --only left out are there, skipped, deselected by --only.
  const leftOut = (r: CheckResult, words: string): CheckResult => ({
    ...r,
    status: 'skipped',
    cause: 'deselected',
    reason: `not selected (${words})`,
    outOfScope: { flag: '--only', words },
    metrics: undefined,
  });
  const onlyRest = passing().map((r) => (r.id.startsWith('rest.') ? r : leftOut(r, '--only rest')));
  const onlyRestRpc = passing().map((r) => (r.id.startsWith('preconf.') ? leftOut(r, '--only rest,rpc') : r));

  it.each<[string, () => string, string]>([
    ['complete, conformant, full scope', () => badge(passing()), 'conformant · dedicated · 4/4 · rpc.example · 2026-01-01'],
    ['a failure', () => badge([result('rpc.c', 'failed'), result('rpc.d', 'passed')]), 'non-conformant · dedicated · 1/2 · rpc.example · 2026-01-01'],
    [
      'not everything judged',
      () => badge([result('rpc.c', 'inconclusive'), result('rpc.d', 'passed')]),
      'incomplete · dedicated · 1/2 · rpc.example · 2026-01-01',
    ],
    ['one interface', () => badge(rpcOnly, { ...FULL, baseUrl: undefined }), 'conformant · rpc only · dedicated · 2/2 · rpc.example · 2026-01-01'],
    ['no signer', () => badge(passing(), { ...FULL, signer: false }), 'conformant · no signer · dedicated · 4/4 · rpc.example · 2026-01-01'],
    ['--only', () => badge(passing(), { ...FULL, only: ['rest', 'rpc', 'preconf'] }), 'conformant · partial · dedicated · 4/4 · rpc.example · 2026-01-01'],
    ['the embedded reference', () => badge(passing(), { ...FULL, embedded: true }), 'conformant · embedded reference · dedicated · 4/4 · 2026-01-01'],
    [
      '--only rest, a key given: the checks left out do not count',
      () => badge(onlyRest, { ...FULL, only: ['rest'] }),
      'conformant · rest only · dedicated · 1/1 · api.example · 2026-01-01',
    ],
    [
      '--only rest against the embedded reference says both',
      () => badge(onlyRest, { ...FULL, only: ['rest'], embedded: true }),
      'conformant · rest only · embedded · dedicated · 1/1 · 2026-01-01',
    ],
    [
      '--only rest,rpc with a key: partial, not "no signer"',
      () => badge(onlyRestRpc, { ...FULL, only: ['rest', 'rpc'], embedded: true }),
      'conformant · partial · embedded · dedicated · 3/3 · 2026-01-01',
    ],
    [
      'incomplete against the embedded reference',
      () => badge([result('rpc.c', 'inconclusive'), result('rpc.d', 'passed')], { ...FULL, embedded: true }),
      'incomplete · embedded reference · dedicated · 1/2 · 2026-01-01',
    ],
    ['the public profile', () => badge(passing(), { ...FULL, profile: 'public' }), 'conformant · public · 4/4 · rpc.example · 2026-01-01'],
  ])('%s', (_what, make, text) => {
    expect(make()).toBe(text);
  });

  it('is a small self-contained SVG that says the same', () => {
    const svg = renderBadge(buildStatement(readerDocument(doc(passing())), '{}').predicate.tokenizedStocksConformance.badge, true);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="20"/);
    expect(svg).toContain('<title>tokenized-stocks conformance: conformant · dedicated · 4/4 · rpc.example · 2026-01-01</title>');
    expect(svg).not.toMatch(/<script|href=|<image|@import|url\(http/);
    expect(svg.length).toBeLessThan(2000);
  });
});

describe('--certify', () => {
  it('is a flag with an environment variable, off by default', () => {
    expect(loadConfig([], {}).certify).toBe(false);
    expect(loadConfig(['--certify'], {}).certify).toBe(true);
    expect(loadConfig([], { CERTIFY: '1' }).certify).toBe(true);
    expect(loadConfig([], { CERTIFY: 'true' }).certify).toBe(true);
    expect(loadConfig([], { CERTIFY: '0' }).certify).toBe(false);
  });

  it('without it, no certificate or badge is written', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cert-'));
    expect(writeReports(doc(passing()), dir).map((f) => path.basename(f))).toEqual(['results.json', 'junit.xml', 'summary.md', 'report.html']);
    expect(readFileSync(path.join(dir, 'summary.md'), 'utf8')).not.toContain('## Certificate');
  });
});
