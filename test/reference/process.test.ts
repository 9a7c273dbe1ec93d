// The standalone process (bin/reference.js -> src/reference/main.ts): the --json line, clean
// shutdown, exit 2 on bad flags, and no anvil left behind, even when the parent is SIGKILLed.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs, UsageError } from '../../src/reference/cli-args';
import { waitFor } from './helpers';

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'reference.js');

interface Started {
  child: ChildProcessWithoutNullStreams;
  first: string;
  anvilPid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcessWithoutNullStreams[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

async function startStandalone(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT });
  children.push(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    void exited.then(({ code }) => reject(new Error(`exited ${code}: ${stderr}`)));
    setTimeout(() => reject(new Error(`no stdout line within 15 s: ${stderr}`)), 15_000).unref();
  });
  const anvilPid = await waitFor(
    'the anvil pid on stderr',
    async () => {
      const m = /anvil pid (\d+)/.exec(stderr);
      return m ? Number(m[1]) : undefined;
    },
    2_000,
  );
  return { child, first, anvilPid, exited };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function gone(pid: number): Promise<true> {
  return waitFor(`process ${pid} to be gone`, async () => (alive(pid) ? undefined : true), 5_000, 20);
}

describe('npm run reference', () => {
  test('--json prints exactly one JSON line first, serves, and SIGTERM stops it cleanly with no anvil left', async () => {
    const { child, first, anvilPid, exited } = await startStandalone(['--json', '--block-time', '1000', '--profile', 'dedicated']);
    const line = JSON.parse(first) as Record<string, string> & { judge: string[] };
    expect(Object.keys(line)).toEqual(['baseUrl', 'rpcUrl', 'profile', 'blockTimeMs', 'flashblockMs', 'sealGridAtMs', 'signerKey', 'judge']);
    expect([line.blockTimeMs, line.flashblockMs]).toEqual([1000, 200]);
    // One seal's time (epoch milliseconds): the clock started during the start-up just awaited.
    expect(Number.isInteger(line.sealGridAtMs) && Date.now() - Number(line.sealGridAtMs)).toBeGreaterThanOrEqual(0);
    expect(Date.now() - Number(line.sealGridAtMs)).toBeLessThan(60_000);
    // What judges everything: both URLs, the dev signer, and --require full.
    expect(line.judge).toEqual(expect.arrayContaining([line.baseUrl, line.rpcUrl, line.signerKey, '--require', 'full']));
    expect(line.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(line.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(line.profile).toBe('dedicated');
    expect(line.signerKey).toMatch(/^0x[0-9a-f]{64}$/);
    expect(alive(anvilPid)).toBe(true);

    // Without --stop-with-stdin, the end of stdin is no reason to stop (the command is unchanged).
    child.stdin.end();
    const res = await fetch(`${line.baseUrl}/v1/tokenized-stocks`);
    expect(res.status).toBe(200);

    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    await gone(anvilPid);
  });

  test('--stop-with-stdin: the end of stdin (its parent gone) stops it cleanly with no anvil left', async () => {
    const { child, anvilPid, exited } = await startStandalone(['--json', '--stop-with-stdin']);
    expect(alive(anvilPid)).toBe(true);
    child.stdin.end();
    expect(await exited).toEqual({ code: 0, signal: null });
    await gone(anvilPid);
  });

  test('after SIGKILL of the parent, the orphan guard takes anvil down', async () => {
    const { child, anvilPid, exited } = await startStandalone(['--json']);
    expect(alive(anvilPid)).toBe(true);
    child.kill('SIGKILL');
    await exited;
    await gone(anvilPid);
  });

  test('a bad flag exits 2 with a message and the usage on stderr', () => {
    const out = spawnSync(process.execPath, [BIN, '--profile', 'nope'], { cwd: ROOT, encoding: 'utf8', timeout: 15_000 });
    expect(out.status).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/^reference: --profile must be public or dedicated.*\nusage:/);
  });
});

describe('flag parsing', () => {
  test.each([
    [['--profile', 'nope']],
    [['--block-time', 'fast']],
    [['--block-time', '5']],
    [['--port-rest']],
    [['--port-rpc', '70000']],
    [['--port-rest', '9000', '--port-rpc', '9000']],
    [['--bogus']],
    [['--json=yes']],
    [['--flashblock-ms', '5']],
    [['--flashblock-ms', '2000']], // not below the default block time
    [['--block-time', '500', '--flashblock-ms', '500']],
    [['--flashblock-ms', '0', '--inclusion-delay-flashblocks', '2']],
    [['--inclusion-delay-flashblocks', '-1']],
    [['--block-number-mode', 'pending']],
  ])('%j is a usage error', (args) => {
    expect(() => parseArgs(args)).toThrow(UsageError);
  });

  test('good flags, in both spellings', () => {
    expect(parseArgs(['--profile', 'public', '--block-time=250', '--port-rest', '0', '--port-rpc=0', '--json', '--controls'])).toEqual({
      profile: 'public',
      blockTimeMs: 250,
      portRest: 0,
      portRpc: 0,
      json: true,
      controls: true,
      help: false,
      stopWithStdin: false,
    });
    expect(parseArgs([])).toEqual({ json: false, help: false, stopWithStdin: false });
    expect(parseArgs(['--stop-with-stdin'])).toMatchObject({ stopWithStdin: true });
    expect(parseArgs(['--flashblock-ms', '0'])).toMatchObject({ flashblockMs: 0 });
    expect(parseArgs(['--block-time=1000', '--flashblock-ms=100', '--inclusion-delay-flashblocks', '3', '--block-number-mode', 'building'])).toMatchObject({
      blockTimeMs: 1000,
      flashblockMs: 100,
      inclusionDelayFlashblocks: 3,
      blockNumberMode: 'building',
    });
  });
});
