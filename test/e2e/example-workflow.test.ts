// examples/github-actions.yml must work as written. GitHub itself is out of reach here, so this
// test reads the workflow, checks what GitHub would refuse or do wrongly (permissions, the matrix,
// the compare job's wiring), and runs its shell steps with bash exactly as written — the secrets
// check, the run with its exit-code handling, the verdict, and the compare — against the embedded
// reference target served on loopback.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
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
  env?: Record<string, string>;
  defaults?: { run?: { 'working-directory'?: string } };
  steps: Step[];
}
const workflow = YAML.parse(readFileSync(path.join(ROOT, 'examples/github-actions.yml'), 'utf8')) as { permissions: Record<string, string>; env: Record<string, string>; jobs: Record<string, Job> };
const run = workflow.jobs.conformance;
const compare = workflow.jobs.compare;
const step = (job: Job, name: RegExp) => {
  const s = job.steps.find((x) => name.test(x.name ?? x.uses ?? ''));
  if (!s) throw new Error(`no step ${name}`);
  return s;
};

/** The expressions the workflow's scripts and env use, evaluated as GitHub would for one matrix entry. */
function expand(text: string, matrix: Record<string, string>, secrets: Record<string, string>): string {
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expr: string) => {
    let m = /^matrix\.(\w+)$/.exec(expr);
    if (m) return matrix[m[1]] ?? '';
    m = /^secrets\[matrix\.(\w+)\]$/.exec(expr);
    if (m) return secrets[matrix[m[1]]] ?? '';
    m = /^secrets\.(\w+)$/.exec(expr);
    if (m) return secrets[m[1]] ?? '';
    throw new Error(`the test does not evaluate \${{ ${expr} }}: teach it, or keep the scripts simple`);
  });
}

/**
 * One step's script with bash as GitHub runs it (bash --noprofile --norc -eo pipefail). Not
 * spawnSync: the reference target serves from this very process and must keep answering.
 */
function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CI: 'true', ...env } });
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

describe('examples/github-actions.yml, as GitHub would read it', () => {
  it('grants the JUnit step what it needs, and nothing more to the rest', () => {
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(run.permissions).toEqual({ contents: 'read', checks: 'write' });
    expect(step(run, /junit/).uses).toMatch(/^mikepenz\/action-junit-report@v\d+$/);
    expect(compare.permissions).toEqual({ contents: 'read' });
  });

  it('checks the secrets before installing anything, and one job per target feeds one compare job', () => {
    expect(run.steps.findIndex((s) => s.name === 'Check the secrets')).toBeLessThan(run.steps.findIndex((s) => s.run === 'npm ci'));
    expect(run.strategy!.matrix.include.length).toBeGreaterThanOrEqual(2);
    for (const t of run.strategy!.matrix.include) expect(Object.keys(t).sort()).toEqual(['base_url_secret', 'profile', 'rpc_url_secret', 'target']);
    expect(compare.needs).toBe('conformance');
    expect(compare.if).toBe('always()');
    expect(step(compare, /download-artifact/).with).toMatchObject({ pattern: 'conformance-*' });
    expect(step(run, /upload-artifact/).with).toMatchObject({ name: 'conformance-${{ matrix.target }}' });
    // Every report and annotation step runs also after a failing run.
    for (const s of [step(run, /Step summary/), step(run, /junit/), step(run, /upload-artifact/), step(run, /Verdict/)]) expect(s.if).toMatch(/^always\(\)/);
  });
});

describe('examples/github-actions.yml, its shell steps run as written', () => {
  let ref: ReferenceTarget;
  const matrix = run.strategy!.matrix.include[0];
  let suite: string;
  let secrets: Record<string, string>;
  const env = (extra: Record<string, string> = {}) => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(run.env ?? {})) out[k] = expand(String(v), matrix, secrets);
    return { ...out, ...extra };
  };

  beforeAll(async () => {
    ref = await startReference({ profile: 'dedicated', blockTimeMs: 1000 });
    secrets = { [matrix.base_url_secret]: ref.baseUrl, [matrix.rpc_url_secret]: ref.rpcUrl };
    // The checkout of the suite (`path: suite`): its package.json and bin, reports written inside it.
    suite = mkdtempSync(path.join(tmpdir(), 'suite-'));
    for (const f of ['package.json', 'bin']) symlinkSync(path.join(ROOT, f), path.join(suite, f));
  }, 60_000);
  afterAll(async () => {
    await ref?.stop();
  });

  it('the secrets check stops a job whose URL secrets are empty, naming them, and warns without a key', async () => {
    const script = expand(step(run, /Check the secrets/).run!, matrix, {});
    const empty = await bash(script, suite, env({ BASE_URL: '', RPC_URL: '' }));
    expect(empty.code).toBe(2);
    expect(empty.out).toContain(`::error title=conformance ${matrix.target}::missing secret(s): ${matrix.base_url_secret} ${matrix.rpc_url_secret}`);
    const ok = await bash(script, suite, env());
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('::warning title=conformance staging::no SIGNER_PRIVATE_KEY');
  });

  it('the run records the exit code, certifies, and the verdict step turns 0/1/3 into the job result', async () => {
    const output = path.join(suite, 'github-output');
    writeFileSync(output, '');
    // ONLY keeps it quick; everything else as the job sets it.
    const r = await bash(expand(step(run, /^Conformance of/).run!, matrix, secrets), suite, env({ GITHUB_OUTPUT: output, ONLY: 'rest,rpc' }));
    expect(r.code).toBe(0);
    if (readFileSync(output, 'utf8') !== 'code=0\n') throw new Error(`${readFileSync(output, 'utf8')}${r.out.slice(-5000)}`);
    expect(r.out).toContain('conformant (exit 0)');
    const dir = path.join(suite, expand(run.env!.REPORT_DIR, matrix, secrets));
    for (const f of ['results.json', 'junit.xml', 'summary.md', 'report.html', 'certificate.json', 'badge.svg']) expect(() => readFileSync(path.join(dir, f))).not.toThrow();

    const summary = path.join(suite, 'step-summary');
    writeFileSync(summary, '');
    expect((await bash(step(run, /Step summary/).run!, suite, env({ GITHUB_STEP_SUMMARY: summary }))).code).toBe(0);
    expect(readFileSync(summary, 'utf8')).toMatch(/^# ✅ Tokenized stocks conformance: conformant/);

    const verdict = step(run, /Verdict/).run!;
    const code = async (CODE: string, INCOMPLETE_FAILS = 'false') => (await bash(verdict, suite, { CODE, INCOMPLETE_FAILS })).code;
    expect([await code('0'), await code('1'), await code('2'), await code('3'), await code('3', 'true'), await code('130')]).toEqual([0, 1, 2, 0, 3, 130]);
  }, 120_000);

  it('the compare step compares what the matrix uploaded, and says so when there is too little', async () => {
    const summary = path.join(suite, 'compare-summary');
    writeFileSync(summary, '');
    const script = step(compare, /Compare the targets/).run!;
    mkdirSync(path.join(suite, 'runs'), { recursive: true });
    const lonely = await bash(script, suite, { GITHUB_STEP_SUMMARY: summary });
    expect(lonely.code).toBe(0);
    expect(lonely.out).toContain('::warning title=conformance compare::0 target(s) produced results');
    const made = path.join(suite, expand(run.env!.REPORT_DIR, matrix, secrets));
    for (const t of ['staging', 'production']) cpSync(made, path.join(suite, 'runs', `conformance-${t}`), { recursive: true });
    const r = await bash(script, suite, { GITHUB_STEP_SUMMARY: summary });
    if (r.code !== 0) throw new Error(r.out);
    expect(readFileSync(path.join(suite, 'compare', 'compare.html'), 'utf8')).toContain('Conformance compared: 2 targets, 0 differences');
    expect(readFileSync(summary, 'utf8')).toMatch(/^# Conformance compared: 2 targets, 0 differences/);
  }, 60_000);
});
