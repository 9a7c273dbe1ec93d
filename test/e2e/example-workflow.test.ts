// examples/github-actions.yml and examples/certify-node.yml must work as written. GitHub itself is
// out of reach here, so this test reads the workflows, checks what GitHub would refuse or do
// wrongly (inputs the Action does not declare, permissions, the compare job's wiring), and runs
// the Action's step as the runner would (action/main.js with the `with:` values evaluated for one
// matrix entry) against the reference target served on loopback, then the compare step's script
// with bash exactly as written. The repository's own ci.yml and release.yml are read the same way.
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { startReference, type ReferenceTarget } from '../../src/reference';

const ROOT = path.resolve(__dirname, '../..');

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  if?: string;
  permissions?: Record<string, string>;
  strategy?: { matrix: { include: Array<Record<string, string>> } };
  steps: Step[];
}
interface Workflow {
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
}
const read = (file: string) => YAML.parse(readFileSync(path.join(ROOT, file), 'utf8')) as Workflow;
const ci = read('examples/github-actions.yml');
const certify = read('examples/certify-node.yml');
const actionInputs = Object.keys(YAML.parse(readFileSync(path.join(ROOT, 'action.yml'), 'utf8')).inputs);
const run = ci.jobs.conformance;
const compare = ci.jobs.compare;
const step = (job: Job, name: RegExp) => {
  const s = job.steps.find((x) => name.test(x.name ?? x.uses ?? ''));
  if (!s) throw new Error(`no step ${name}`);
  return s;
};
/** The step that uses this repository's Action (any owner and ref: the copy names its own). */
const actionStep = (job: Job) => {
  const s = job.steps.find((x) => /^[\w.-]+\/tokenized-stocks-conformance@[\w.-]+$/.test(x.uses ?? ''));
  if (!s) throw new Error('no step uses the Action');
  return s;
};

/** The expressions the workflow uses, evaluated as GitHub would for one matrix entry. */
function expand(text: string, matrix: Record<string, string>, secrets: Record<string, string>, vars: Record<string, string> = {}): string {
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expr: string) => {
    let m = /^matrix\.(\w+)$/.exec(expr);
    if (m) return matrix[m[1]] ?? '';
    m = /^secrets\[matrix\.(\w+)\]$/.exec(expr);
    if (m) return secrets[matrix[m[1]]] ?? '';
    m = /^secrets\.(\w+)$/.exec(expr);
    if (m) return secrets[m[1]] ?? '';
    m = /^vars\.(\w+) \|\| '([^']*)'$/.exec(expr);
    if (m) return vars[m[1]] || m[2];
    throw new Error(`the test does not evaluate \${{ ${expr} }}: teach it, or keep the workflow simple`);
  });
}

/** A child process (bash or node), bounded; not spawnSync: the reference target serves from this process. */
function spawnBounded(argv: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CI: 'true', ...env } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}
/** One step's script with bash as GitHub runs it (bash --noprofile --norc -eo pipefail). */
const bash = (script: string, cwd: string, env: Record<string, string>) =>
  spawnBounded(['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c', script], cwd, env);

describe('the example workflows, as GitHub would read them', () => {
  it.each([
    ['github-actions.yml', run],
    ['certify-node.yml', certify.jobs.certify],
  ])('%s gives the Action only inputs it declares, and uploads its report directory also after a failure', (_, job) => {
    const s = actionStep(job);
    for (const input of Object.keys(s.with ?? {})) expect(actionInputs).toContain(input);
    const upload = step(job, /upload-artifact/);
    expect(upload.if).toBe('always()');
    expect(upload.with?.path).toBe(`\${{ steps.${s.id}.outputs.report-dir }}`);
  });

  it('reads only what it needs, one job per target feeds one compare job', () => {
    expect(ci.permissions).toEqual({ contents: 'read' });
    expect(certify.permissions).toEqual({ contents: 'read' });
    expect(compare.permissions).toEqual({ contents: 'read' });
    expect(run.strategy!.matrix.include.length).toBeGreaterThanOrEqual(2);
    for (const t of run.strategy!.matrix.include) expect(Object.keys(t).sort()).toEqual(['base_url_secret', 'profile', 'rpc_url_secret', 'target']);
    expect(compare.needs).toBe('conformance');
    expect(compare.if).toBe('always()');
    expect(step(compare, /download-artifact/).with).toMatchObject({ pattern: 'conformance-*' });
    expect(step(run, /upload-artifact/).with).toMatchObject({ name: 'conformance-${{ matrix.target }}' });
  });

  it('the certification certifies the whole specification (certify, require full, a signer) and attests what it wrote, whatever the outcome', () => {
    const job = certify.jobs.certify;
    const s = actionStep(job);
    expect(s.with).toMatchObject({ certify: true, require: 'full', 'signer-key': '${{ secrets.SIGNER_PRIVATE_KEY }}' });
    expect(job.permissions).toEqual({ contents: 'read', 'id-token': 'write', attestations: 'write' });
    const attest = job.steps.find((x) => /^actions\/attest@v\d+$/.test(x.uses ?? ''))!;
    // The files where the Action says it wrote them (its report-dir output), once the run reached a verdict (its status output).
    const dir = `\${{ steps.${s.id}.outputs.report-dir }}`;
    expect(attest.if).toBe(`always() && contains(fromJSON('["conformant", "non-conformant", "incomplete"]'), steps.${s.id}.outputs.status)`);
    expect(attest.with).toMatchObject({
      'subject-path': `${dir}/results.json`,
      'predicate-path': `${dir}/predicate.json`,
      'predicate-type': 'https://in-toto.io/attestation/test-result/v0.1',
    });
  });
});

describe('examples/github-actions.yml, run as written', () => {
  let ref: ReferenceTarget;
  const matrix = run.strategy!.matrix.include[0];
  let workspace: string;
  let reportDir: string;

  beforeAll(async () => {
    ref = await startReference({ profile: 'dedicated', blockTimeMs: 1000 });
    workspace = mkdtempSync(path.join(tmpdir(), 'workspace-'));
  }, 60_000);
  afterAll(async () => {
    await ref?.stop();
  });

  it("the Action's step, its inputs evaluated for the first matrix entry, judges that target and certifies it", async () => {
    const secrets = { [matrix.base_url_secret]: ref.baseUrl, [matrix.rpc_url_secret]: ref.rpcUrl };
    const env: Record<string, string> = {
      GITHUB_WORKSPACE: workspace,
      GITHUB_OUTPUT: path.join(workspace, 'output'),
      GITHUB_STEP_SUMMARY: path.join(workspace, 'summary'),
      NO_COLOR: '1',
      ONLY: 'rest,rpc',
    }; // ONLY keeps it quick
    for (const [k, v] of Object.entries(actionStep(run).with ?? {})) env[`INPUT_${k.toUpperCase()}`] = expand(String(v), matrix, secrets);
    const r = await spawnBounded([process.execPath, path.join(ROOT, 'action/main.js')], workspace, env);
    if (r.code !== 0) throw new Error(r.out.slice(-5000));
    reportDir = path.join(workspace, expand(String(actionStep(run).with!['report-dir']), matrix, secrets));
    expect(readFileSync(env.GITHUB_OUTPUT, 'utf8')).toContain(reportDir);
    for (const f of ['results.json', 'junit.xml', 'summary.md', 'report.html', 'certificate.json', 'badge.svg'])
      expect(() => readFileSync(path.join(reportDir, f))).not.toThrow();
    expect(readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8')).toMatch(/^# ✅ Tokenized stocks conformance: conformant/);
    const results = JSON.parse(readFileSync(path.join(reportDir, 'results.json'), 'utf8'));
    expect(results.target.embedded).toBe(false);
    expect(results.target.profile).toBe(matrix.profile);
  }, 120_000);

  it('the compare step compares what the matrix uploaded, and says so when there is too little', async () => {
    const summary = path.join(workspace, 'compare-summary');
    writeFileSync(summary, '');
    const s = step(compare, /Compare the targets/);
    // `npx --package <release tarball> conformance …` without the network: this checkout's command.
    const shims = path.join(workspace, 'shims');
    mkdirSync(shims);
    writeFileSync(
      path.join(shims, 'npx'),
      `#!/usr/bin/env bash\n[ "$1 $2 $3" = "--yes --package $SUITE" ] || { echo "npx called as: $*" >&2; exit 9; }\nshift 4\nexec "${process.execPath}" "${ROOT}/bin/conformance.js" "$@"\n`,
    );
    chmodSync(path.join(shims, 'npx'), 0o755);
    const env = { ...s.env, GITHUB_STEP_SUMMARY: summary, PATH: `${shims}:${process.env.PATH}` };
    const cwd = mkdtempSync(path.join(tmpdir(), 'compare-'));
    mkdirSync(path.join(cwd, 'runs'));
    const lonely = await bash(s.run!, cwd, env);
    expect(lonely.code).toBe(0);
    expect(lonely.out).toContain('::warning title=conformance compare::0 target(s) produced results');
    for (const t of ['staging', 'production']) cpSync(reportDir, path.join(cwd, 'runs', `conformance-${t}`), { recursive: true });
    const r = await bash(s.run!, cwd, env);
    if (r.code !== 0) throw new Error(r.out);
    expect(readFileSync(path.join(cwd, 'compare', 'compare.html'), 'utf8')).toContain('Conformance compared: 2 targets, 0 differences');
    expect(readFileSync(summary, 'utf8')).toMatch(/^# Conformance compared: 2 targets, 0 differences/);
  }, 60_000);
});

describe("this repository's own workflows", () => {
  const own = (name: string) => YAML.parse(readFileSync(path.join(ROOT, '.github/workflows', name), 'utf8'));

  it('ci.yml runs the Action from this checkout with inputs it declares, and checks its outputs', () => {
    const job = own('ci.yml').jobs.action as Job;
    const s = job.steps.find((x) => x.uses === './')!;
    for (const input of Object.keys(s.with ?? {})) expect(actionInputs).toContain(input);
    expect(
      job.steps.some(
        (x) => (x.run ?? '').includes(`steps.${s.id}.outputs`) || Object.values(x.env ?? {}).some((v) => v.includes(`steps.${s.id}.outputs.status`)),
      ),
    ).toBe(true);
  });

  it('release.yml publishes a v* tag with provenance, only after npm ci and npm test, and only the version the tag names', async () => {
    const wf = own('release.yml');
    expect(wf.on).toEqual({ push: { tags: ['v*'] } });
    const job = wf.jobs.publish as Job;
    expect(job.permissions).toEqual({ contents: 'write', 'id-token': 'write' });
    const at = (re: RegExp) => job.steps.findIndex((x) => re.test(x.run ?? ''));
    expect(at(/^npm ci$/)).toBeGreaterThan(at(/GITHUB_REF_NAME" = "v\$version"/));
    expect(at(/^npm test$/)).toBeGreaterThan(at(/^npm ci$/));
    expect(at(/^npm publish --provenance --access public$/)).toBeGreaterThan(at(/^npm test$/));
    const tagCheck = job.steps[at(/GITHUB_REF_NAME" = "v\$version"/)].run!;
    const version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
    expect((await bash(tagCheck, ROOT, { GITHUB_REF_NAME: `v${version}` })).code).toBe(0);
    const wrong = await bash(tagCheck, ROOT, { GITHUB_REF_NAME: 'v99.0.0' });
    expect(wrong.code).toBe(1);
    expect(wrong.out).toContain('::error title=release::tag v99.0.0 does not match');
  });
});
