// The GitHub Action (action.yml) as the runner starts it: `node action/main.js` with the inputs as
// INPUT_* variables and the runner's files ($GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY), against the
// reference target served on loopback, and against faulty variants of it (test/faults/proxy.ts).
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { command, keyValue } from '../../src/action/commands';
import { INPUTS } from '../../src/action/inputs';
import { fails } from '../../src/action/main';
import { inInputTerms } from '../../src/action/messages';
import { Output } from '../../src/action/output';
import { shellWords } from '../../src/action/words';
import { SUITE_FILES } from '../../src/cli/report-files';
import { startReference, type ReferenceTarget } from '../../src/reference';
import { VARIANTS } from '../faults/catalogue';
import { startProxy, type Proxy } from '../faults/proxy';
import { startHostile } from '../support/hostile';

const ROOT = path.resolve(__dirname, '../..');

interface Step {
  code: number | null;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
  workspace: string;
}

/** One step of a job: a fresh workspace (or one an earlier job left), the runner's files, the inputs; bounded in time. */
function step(inputs: Record<string, string>, timeoutMs = 120_000, workspace = mkdtempSync(path.join(tmpdir(), 'action-'))): Promise<Step> {
  const outputFile = path.join(workspace, '.github-output');
  const summaryFile = path.join(workspace, '.step-summary');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, 'written by an earlier step\n');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NO_COLOR: '1',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
  };
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'action/main.js')], { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stdout += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the action did not finish within ${timeoutMs} ms\n${stdout.slice(-5000)}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, outputs: parseOutputs(readFileSync(outputFile, 'utf8')), summary: readFileSync(summaryFile, 'utf8'), workspace });
    });
  });
}

/** $GITHUB_OUTPUT as the runner reads it: `name<<delimiter` blocks only (a bare name=value is refused here). */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]) continue;
    const m = /^([\w-]+)<<(ghadelimiter_[0-9a-f-]{36})$/.exec(lines[i]);
    if (!m) throw new Error(`not a delimited output: ${lines[i]}`);
    const end = lines.indexOf(m[2], i + 1);
    if (end < 0) throw new Error(`output ${m[1]} never closed`);
    out[m[1]] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return out;
}

/** The lines the runner reads as workflow commands: those outside every `::stop-commands::` fence. */
function commandsRead(lines: string[]): string[] {
  const out: string[] = [];
  let token: string | undefined;
  for (const l of lines) {
    if (token !== undefined) {
      if (l === `::${token}::`) token = undefined;
      continue;
    }
    const fence = /^::stop-commands::(.+)$/.exec(l);
    if (fence) token = fence[1];
    else if (l.startsWith('::')) out.push(l);
  }
  return out;
}

const errors = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('::error'));
const results = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8'));
const variant = (name: string) => {
  const v = VARIANTS.find((x) => x.name === name);
  if (!v) throw new Error(`no fault variant ${name}`);
  return v;
};

describe('action.yml', () => {
  const meta = YAML.parse(readFileSync(path.join(ROOT, 'action.yml'), 'utf8'));
  it('is a JavaScript action on a current runtime whose entry exists, and declares what main.js reads and writes', () => {
    expect(meta.runs).toEqual({ using: 'node24', main: 'action/main.js' });
    expect(Object.keys(meta.inputs).sort()).toEqual([...INPUTS].sort());
    expect(Object.keys(meta.outputs).sort()).toEqual(['exit-code', 'report-dir', 'status']);
  });
});

describe('workflow commands and file commands', () => {
  it('escape data and properties as the toolkit does', () => {
    expect(command('error', { title: 'a:b,c%\n' }, '50% done\r\nnext')).toBe('::error title=a%3Ab%2Cc%25%0A::50%25 done%0D%0Anext\n');
  });
  it('delimit an output with a fresh delimiter that the value cannot close', () => {
    const text = keyValue('status', 'two\nlines');
    expect(parseOutputs(text)).toEqual({ status: 'two\nlines' });
    expect(keyValue('x', '1')).not.toBe(keyValue('x', '1'));
  });
  it('fail the step exactly for 1, 2, 130 and anything unknown; 3 as fail-on-incomplete says', () => {
    expect([0, 1, 2, 3, 130, 137].map((c) => fails(c, true, 'incomplete'))).toEqual([false, true, true, true, true, true]);
    expect(fails(3, false, 'incomplete')).toBe(false);
  });
  it('fail the step for an exit 3 beside no results.json or one not incomplete (the suite crashed), whatever fail-on-incomplete says', () => {
    expect(fails(3, false, undefined)).toBe(true);
    expect(fails(3, false, 'non-conformant')).toBe(true);
    expect(fails(3, true, undefined)).toBe(true);
  });
});

describe("the Action's writer (src/action/output.ts)", () => {
  const capture = () => {
    const lines: string[] = [];
    return { lines, isTTY: false, write: (t: string) => lines.push(t) > 0 };
  };

  it("masks the Action's own lines without breaking its workflow commands; add-mask lines pass outside the gate; a withheld write is named, never shown", () => {
    const out = capture();
    const err = capture();
    const io = new Output(
      ['--header', 'X-Key: hdrKey55-QQww-88zz'],
      { HEADERS: 'X-Other: othKey66-RRtt-99yy' },
      'tenantalpha9x,pre***post,X-secret-Y\ntenantbeta8yyq',
      out,
      err,
    );
    io.mask('::add-mask::tenantalpha9x\n');
    io.log(command('error', { title: 'rest.list.schema (spec 4.1)' }, 'saw tenantalpha9x, tenantbeta8yyq, hdrKey55-QQww-88zz and othKey66-RRtt-99yy'));
    // Masking one secret spells another (it holds the mask): no masking makes the line safe.
    io.log('::warning::preX-secret-Ypost\n');
    // A secret split across two chunks of the suite's output is still found: lines are passed whole.
    const forwarded = io.forward('stdout');
    forwarded.take('progress tenant');
    forwarded.take('alpha9x done\n');
    forwarded.end();
    const dir = mkdtempSync(path.join(tmpdir(), 'action-output-'));
    io.append(path.join(dir, 'summary'), '# preX-secret-Ypost\n', 'the step summary');
    io.append(path.join(dir, 'summary'), 'fine\n');
    expect(out.lines[0]).toBe('::add-mask::tenantalpha9x\n');
    expect(out.lines[1]).toMatch(/^::error title=rest\.list\.schema \(spec 4\.1\)::saw \*\*\*, \*\*\*, \*\*\* and \*\*\*\n$/);
    expect(out.lines.slice(2).join('')).toBe('progress *** done\n');
    expect(readFileSync(path.join(dir, 'summary'), 'utf8')).toBe('fine\n');
    expect(io.withheld).toEqual(['a line of the step log', 'the step summary']);
    expect(err.lines.join('')).not.toMatch(/X-secret-Y|pre\*\*\*post|tenant/i);
  });
});

describe('args and messages', () => {
  it('args is split as a POSIX shell splits it (quotes, backslashes), with no expansion', () => {
    expect(shellWords(`--grep 'rest\\.token\\.' --only rest,rpc`)).toEqual(['--grep', 'rest\\.token\\.', '--only', 'rest,rpc']);
    expect(shellWords(`--grep "a b\\"c\\\\" x\\ y '' $HOME`)).toEqual(['--grep', 'a b"c\\', 'x y', '', '$HOME']);
    expect(shellWords('  --a\n\t--b  ')).toEqual(['--a', '--b']);
    expect(() => shellWords(`--grep 'open`)).toThrow(/single quote is not closed/);
    expect(() => shellWords('--grep "open')).toThrow(/double quote is not closed/);
  });

  it('messages name the inputs, not the flags', () => {
    expect(inInputTerms('--signer-key (or SIGNER_PRIVATE_KEY): expected 0x followed by 64 hex digits')).toBe(
      'signer-key: expected 0x followed by 64 hex digits',
    );
    expect(inInputTerms('did you swap --base-url and --rpc-url?')).toBe('did you swap base-url: and rpc-url:?');
    expect(inInputTerms('--header (or HEADERS): bad; CERT_SIGN_KEY: x')).toBe('headers: bad; cert-sign-key: x');
  });
});

describe('the action run as the runner starts it', () => {
  let ref: ReferenceTarget;
  const proxies: Proxy[] = [];
  const proxy = async (name: string) => {
    const v = variant(name);
    const p = await startProxy({ restUpstream: ref.baseUrl, rpcUpstream: ref.rpcUrl, rest: v.rest, rpc: v.rpc });
    proxies.push(p);
    return p;
  };
  beforeAll(async () => {
    ref = await startReference({ profile: 'dedicated', blockTimeMs: 1000 });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.stop()));
    await ref?.stop();
  });

  it('a conformant target: exit 0, the summary appended, the outputs set, no annotation, secrets only in add-mask lines', async () => {
    const token = 'Bearer action-test-credential-8c1f';
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const pemBody = pem.split('\n').filter((l) => l && !l.startsWith('-----'));
    const r = await step({
      'BASE-URL': ref.baseUrl,
      'RPC-URL': ref.rpcUrl,
      'SIGNER-KEY': ref.signerKey,
      'RPC-HEADERS': `Authorization: ${token}`,
      CERTIFY: 'true',
      'CERT-SIGN-KEY': pem,
      ARGS: '--only rest,rpc --samples 2',
    });
    if (r.code !== 0) throw new Error(r.stdout.slice(-5000));
    const dir = path.join(r.workspace, 'conformance-report');
    expect(r.outputs).toEqual({ status: 'conformant', 'exit-code': '0', 'report-dir': dir });
    expect(r.summary).toBe('written by an earlier step\n' + readFileSync(path.join(dir, 'summary.md'), 'utf8'));
    expect(r.summary).toMatch(/^# ✅ Tokenized stocks conformance: conformant/m);
    // The files the Action clears before a run are every file the suite writes.
    expect(readdirSync(dir).sort()).toEqual([...SUITE_FILES].sort());
    // Signed with the key given: a DSSE envelope.
    expect(JSON.parse(readFileSync(path.join(dir, 'certificate.json'), 'utf8'))).toHaveProperty('signatures');
    expect(errors(r.stdout)).toEqual([]);
    // The masks come first; the suite's own output is fenced so it can issue no workflow command.
    const lines = r.stdout.split('\n');
    const masks = lines.filter((l) => l.startsWith('::add-mask::'));
    expect(lines.slice(0, masks.length)).toEqual(masks);
    for (const secret of [ref.signerKey.slice(2), token, 'action-test-credential-8c1f', ...pemBody]) {
      expect(masks.some((l) => l === `::add-mask::${secret}`)).toBe(true);
      expect(lines.filter((l) => l.includes(secret) && !l.startsWith('::add-mask::'))).toEqual([]);
      expect(r.summary).not.toContain(secret);
    }
    const stop = lines.findIndex((l) => l.startsWith('::stop-commands::'));
    expect(stop).toBe(masks.length);
    expect(lines).toContain(`::${lines[stop].slice('::stop-commands::'.length)}::`);
  }, 180_000);

  it('a faulty target: one ::error per failure that fails the run, titled by check id, and exit 1', async () => {
    const p = await proxy('rest.list-failure-plain-text');
    const r = await step({ 'BASE-URL': p.restUrl, 'RPC-URL': p.rpcUrl, ARGS: '--only rest' });
    expect(r.code).toBe(1);
    const doc = results(r.outputs['report-dir']);
    const failing = doc.checks.filter((c: { status: string; level: string }) => c.status === 'failed' && c.level === 'required');
    expect(failing.length).toBeGreaterThan(0);
    expect(doc.counts.failed).toBe(failing.length);
    const annotations = errors(r.stdout);
    expect(annotations).toHaveLength(failing.length);
    for (const c of failing)
      expect(annotations).toContainEqual(expect.stringMatching(new RegExp(`^::error title=${c.id.replace(/\./g, '\\.')} \\(spec [^)]+\\)::`)));
    expect(r.outputs).toMatchObject({ status: 'non-conformant', 'exit-code': '1' });
    expect(r.summary).toMatch(/non-conformant/);
  }, 120_000);

  it("a target's text never becomes a workflow command: the suite's output is fenced, annotations escaped", async () => {
    const forged = '\n::error::forged annotation\n::add-mask::abc\r\n';
    const server = http.createServer((req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ tokens: [{ contract_address: forged, symbol: forged, name: forged, decimals: 18 }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const r = await step({ 'BASE-URL': `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ARGS: '--only rest' });
      expect(r.code).toBe(1);
      const lines = r.stdout.split('\n');
      const open = lines.findIndex((l) => l.startsWith('::stop-commands::'));
      const close = lines.indexOf(`::${lines[open].slice('::stop-commands::'.length)}::`);
      expect(close).toBeGreaterThan(open);
      // Outside the fences, the only commands are the action's own: the group of per-check lines, and each annotation on one line, titled by a check id.
      const read = commandsRead(lines);
      expect(read.filter((l) => /^::(end)?group::/.test(l))).toEqual([expect.stringMatching(/^::group::\d+ checks, one line each$/), '::endgroup::']);
      const outside = read.filter((l) => !/^::(end)?group::/.test(l));
      expect(outside.length).toBeGreaterThan(0);
      // At most 10 (what GitHub shows of a step): past that, the tenth names the rest.
      expect(outside.length).toBeLessThanOrEqual(10);
      for (const l of outside) expect(l).toMatch(/^::error title=(rest\.[\w.-]+ \(spec [^)]+\)|conformance%3A \d+ more root causes)::/);
      // Inside its annotation, the forged text is kept to read, its line-start command forms broken as on the console.
      expect(outside.some((l) => l.includes('%0A:\u200b:error::forged annotation%0A:\u200b:add-mask::abc'))).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);

  it('an incomplete run fails the step by default, and only warns with fail-on-incomplete: false', async () => {
    const v = variant('ok.rpc-throttled-for-good');
    const p = await proxy(v.name);
    const inputs = { 'RPC-URL': p.rpcUrl, ARGS: `--only rpc --grep ${v.grep} --timeout-ms 3000 --deadline-ms 60000` };
    const [strict, lenient] = await Promise.all([step(inputs), step({ ...inputs, 'FAIL-ON-INCOMPLETE': 'false' })]);
    expect([strict.code, lenient.code]).toEqual([3, 0]);
    expect(strict.outputs).toMatchObject({ status: 'incomplete', 'exit-code': '3' });
    expect(lenient.outputs).toMatchObject({ status: 'incomplete', 'exit-code': '3' });
    expect(errors(strict.stdout)).toEqual([expect.stringMatching(/^::error title=conformance%3A incomplete::exit 3/)]);
    expect(errors(lenient.stdout)).toEqual([]);
    expect(lenient.stdout).toMatch(/^::warning title=conformance%3A incomplete::/m);
  }, 180_000);

  it('no URL (an unset secret) is a configuration error, never a run against the embedded target; so is what the suite refuses', async () => {
    const notAFolder = mkdtempSync(path.join(tmpdir(), 'action-'));
    writeFileSync(path.join(notAFolder, 'afile'), 'a file, not a folder\n');
    const [none, refused, fileAsFolder] = await Promise.all([
      step({ 'BASE-URL': '', 'RPC-URL': '  ' }),
      step({ 'BASE-URL': ref.baseUrl, PROFILE: 'private' }),
      step({ 'BASE-URL': ref.baseUrl, 'REPORT-DIR': 'afile' }, 120_000, notAFolder),
    ]);
    expect([none.code, refused.code, fileAsFolder.code]).toEqual([2, 2, 2]);
    // A report-dir that is a file: the suite's own refusal, never a stack trace of the step's.
    expect(fileAsFolder.outputs).toMatchObject({ status: 'configuration-error', 'exit-code': '2' });
    expect(errors(fileAsFolder.stdout)).toEqual([expect.stringMatching(/^::error title=conformance%3A configuration-error::exit 2: .*afile/)]);
    expect(fileAsFolder.stdout).not.toMatch(/\n\s+at /);
    expect(errors(none.stdout)).toEqual(['::error title=conformance::base-url and rpc-url are both empty (a missing secret?): give at least one']);
    expect(none.outputs).toMatchObject({ status: 'configuration-error', 'exit-code': '2' });
    expect(none.summary).toMatch(/^written by an earlier step\n# Tokenized stocks conformance: configuration-error \(exit 2\)/);
    expect(refused.stdout).toMatch(/--profile \(or RPC_PROFILE\)/);
    // The suite's own message, in the inputs' terms, is the annotation and the step summary: the fix is in it.
    expect(errors(refused.stdout)).toEqual([
      expect.stringMatching(/^::error title=conformance%3A configuration-error::exit 2: profile: "private" is not one of public, dedicated/),
    ]);
    expect(refused.summary).toMatch(/^> profile: "private" is not one of public, dedicated/m);
    expect(none.summary).toMatch(/^> base-url and rpc-url are both empty/m);
  }, 60_000);

  it("no report of an earlier run survives one that writes none; a URL's digitless path key and query values are masked in the log", async () => {
    // A persistent workspace: the last job's certified reports are still in the report directory.
    const persistent = () => {
      const workspace = mkdtempSync(path.join(tmpdir(), 'action-'));
      mkdirSync(path.join(workspace, 'conformance-report'));
      for (const f of SUITE_FILES) writeFileSync(path.join(workspace, 'conformance-report', f), 'from an earlier run\n');
      return workspace;
    };
    const key = 'kQwErTyUiOpAsDfGhJkLzXcVbNm';
    const [none, refused] = await Promise.all([
      step({ 'BASE-URL': '', 'RPC-URL': '' }, 60_000, persistent()),
      step({ 'BASE-URL': `${ref.baseUrl}/v2/${key}?session=xyzzy.plugh&chain=base`, PROFILE: 'private' }, 60_000, persistent()),
    ]);
    expect([none.code, refused.code]).toEqual([2, 2]);
    for (const r of [none, refused]) {
      const left = SUITE_FILES.filter((f) => existsSync(path.join(r.workspace, 'conformance-report', f)));
      expect(left).toEqual([]);
      expect(r.summary).toMatch(/No report was written/);
    }
    const masks = refused.stdout.split('\n').filter((l) => l.startsWith('::add-mask::'));
    expect(masks).toEqual(expect.arrayContaining([`::add-mask::${key}`, '::add-mask::xyzzy.plugh']));
    expect(masks).not.toContain('::add-mask::base');
  }, 60_000);

  it("a target echoing the secrets input (mixed separators) and a header's value: no log line, step summary or output holds any part", async () => {
    const parts = ['tenantalpha9x', 'tenantbeta8yyq', 'tenantgamma7zz'];
    const headerKey = 'hdrKey55-QQww-88zz';
    const all = [...parts, headerKey];
    // Each value whole, in base64 and percent-encoded (forms an honest server echoes), as member names and values, in JSON and in a long text/plain error.
    const forms = all.flatMap((s) => [s, Buffer.from(s).toString('base64'), encodeURIComponent(s)]);
    let calls = 0;
    const server = await startHostile(() =>
      ++calls % 2 === 0
        ? { status: 400, headers: { 'content-type': 'text/plain' }, body: forms.map((f) => `${'x'.repeat(170)} ${f}`).join('\n') }
        : {
            body: JSON.stringify({
              tokens: [{ contract_address: forms.join(' '), ...Object.fromEntries(forms.map((f) => [f, f])) }],
              message: forms.join(' '),
            }),
          },
    );
    try {
      const r = await step({
        'BASE-URL': server.origin,
        HEADERS: `X-Api-Key: ${headerKey}`,
        SECRETS: `${parts[0]}, ${parts[1]}\n${parts[2]}`,
        ARGS: '--only rest --timeout-ms 3000',
        // A folder named after a tenant: the Action's own output (report-dir) quotes it.
        'REPORT-DIR': `reports-${parts[1]}`,
      });
      expect(r.code).toBe(1);
      const published: Record<string, string> = {
        log: r.stdout
          .split('\n')
          .filter((l) => !l.startsWith('::add-mask::'))
          .join('\n'),
        summary: readFileSync(path.join(r.workspace, '.step-summary'), 'utf8'),
        outputs: readFileSync(path.join(r.workspace, '.github-output'), 'utf8'),
      };
      const leaks: string[] = [];
      for (const secret of all) {
        const fragments = Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8).toLowerCase());
        for (const [name, text] of Object.entries(published)) for (const f of fragments) if (text.toLowerCase().includes(f)) leaks.push(`${name}: ${f}`);
      }
      expect(leaks).toEqual([]);
      // The runner was told every part on its own.
      for (const secret of all) expect(r.stdout.split('\n')).toContain(`::add-mask::${secret}`);
      expect(published.summary).toMatch(/non-conformant/);
      expect(r.outputs).toMatchObject({ status: 'non-conformant', 'exit-code': '1' });
      expect(r.outputs['report-dir']).toContain('***');
    } finally {
      await server.close();
    }
  }, 120_000);

  it('a write the gate cannot make safe is withheld, and the step fails with one line naming it (never the secret)', async () => {
    // Two secrets, one holding the mask itself: masking the other in the folder's name spells it, so no masking makes it safe.
    const r = await step({
      'BASE-URL': ref.baseUrl,
      SECRETS: 'pre***post,X-secret-Y',
      'REPORT-DIR': 'reports-preX-secret-Ypost',
      ARGS: `--grep 'rest\\.list\\.' --only rest`,
    });
    expect(r.code).not.toBe(0);
    const outputs = readFileSync(path.join(r.workspace, '.github-output'), 'utf8');
    const log = r.stdout
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n');
    for (const text of [log, r.summary, outputs]) expect(text).not.toMatch(/X-secret-Y|pre\*\*\*post/);
    expect(errors(r.stdout)).toContainEqual(
      '::error title=conformance action::withheld (it would still have carried a secret): output report-dir ($GITHUB_OUTPUT)',
    );
    // Only that output is withheld: the others are set.
    expect(r.outputs).toEqual({ status: expect.any(String), 'exit-code': String(r.code) });
  }, 120_000);

  it("--report-dir in args: the report-dir output and the step summary follow the user's folder; the per-check lines are folded by the Action's own group commands", async () => {
    const r = await step({ 'BASE-URL': ref.baseUrl, ARGS: `--only rest --grep 'rest\\.list\\.' --report-dir out` });
    expect(r.outputs['report-dir']).toBe(path.join(r.workspace, 'out'));
    expect(results(r.outputs['report-dir']).checks.length).toBeGreaterThan(0);
    expect(r.summary).not.toContain('No report was written');
    expect(r.summary).toContain(readFileSync(path.join(r.workspace, 'out', 'summary.md'), 'utf8'));
    const lines = r.stdout.split('\n');
    // The runner's own commands, read by it (outside the fences), and no neutralised copy of one in the log.
    expect(commandsRead(lines).filter((l) => /group::/.test(l))).toEqual([expect.stringMatching(/^::group::\d+ checks, one line each$/), '::endgroup::']);
    expect(lines.filter((l) => /group::/.test(l) && !/^::(end)?group::/.test(l))).toEqual([]);
    // Inside the group: the per-check lines (and the fence around the group's commands), nothing else.
    const inside = lines.slice(lines.findIndex((l) => l.startsWith('::group::')) + 1, lines.indexOf('::endgroup::'));
    const checkLines = inside.filter((l) => /^\[\s*\d+\/\d+\] /.test(l));
    expect(checkLines.length).toBe(Number(/::group::(\d+)/.exec(lines.find((l) => l.startsWith('::group::'))!)![1]));
    expect(inside.filter((l) => !/^\[\s*\d+\/\d+\] |^ {6}\S|^::(stop-commands::)?[0-9a-f-]{36}(::)?$/.test(l))).toEqual([]);
  }, 120_000);

  it("args copied from the README (--grep 'rest\\.list\\.') selects what it says", async () => {
    const r = await step({ 'BASE-URL': ref.baseUrl, ARGS: `--grep 'rest\\.list\\.' --only rest` });
    const doc = results(r.outputs['report-dir']);
    const judged = doc.checks.filter((c: { status: string }) => c.status !== 'skipped').map((c: { id: string }) => c.id);
    expect(judged.length).toBeGreaterThan(0);
    for (const id of judged) expect(id).toMatch(/^rest\.list\./);
  }, 120_000);

  it('one annotation per root cause, listing the checks it covers, with the curl line that shows it', async () => {
    const p = await proxy('rest.list-500-html');
    const r = await step({ 'BASE-URL': p.restUrl, ARGS: '--only rest' });
    expect(r.code).toBe(1);
    const annotations = errors(r.stdout);
    expect(annotations).toHaveLength(1);
    // The list's failure in HTML breaks 4.1 (not 200), and 7 and 2.3 (its body is no rpcStatus): commas escaped in the title.
    expect(annotations[0]).toMatch(/^::error title=rest\.list\.status-200 \(spec 4\.1%2C 7%2C 2\.3\)::/);
    expect(annotations[0]).toMatch(/%0Acovers \d+ check\(s\) not judged because of it: rest\./);
    expect(annotations[0]).toMatch(/%0Arepro: curl /);
  }, 120_000);

  it('the suite refusing a swapped URL: its message, in input terms, is the annotation', async () => {
    const r = await step({ 'BASE-URL': ref.baseUrl, 'RPC-URL': ref.baseUrl });
    expect(r.code).toBe(2);
    expect(errors(r.stdout)).toEqual([expect.stringMatching(/::exit 2: rpc-url: does not speak JSON-RPC.*did you swap base-url: and rpc-url:\?/)]);
    expect(r.summary).toMatch(/^> rpc-url: does not speak JSON-RPC/m);
  }, 60_000);

  it("a root cause's fix names the input to set (profile: public), its curl line left as the shell needs it", async () => {
    const p = await proxy('rpc.receipts-dedicated-403');
    const r = await step({ 'RPC-URL': p.rpcUrl, ARGS: '--only rpc' });
    expect(r.code).toBe(1);
    const annotations = errors(r.stdout);
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatch(/^::error title=rpc\.getBlockReceipts\.block\.latest /);
    expect(annotations[0]).toMatch(/%0Afix: .*run with profile: public%0A/);
    expect(annotations[0]).not.toMatch(/--profile/);
    expect(annotations[0]).toMatch(/%0Acovers \d+ check\(s\)/);
    expect(annotations[0]).toMatch(/%0Arepro: curl /);
  }, 120_000);
});
