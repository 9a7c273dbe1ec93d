// The report directory is made one level at a time (src/cli/egress.ts makeDirs): Node's recursive
// mkdir never returns under /proc, and a user who points --report-dir there must get one line, exit 2.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeDirs } from '../../src/cli/report-files';
import { main } from '../../src/cli/main';
import { sink } from '../support/sink';

describe('makeDirs', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'make-dirs-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('makes every missing level, and is a no-op on a directory that exists', () => {
    const deep = path.join(root, 'a', 'b', 'c');
    makeDirs(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
    expect(() => makeDirs(deep)).not.toThrow();
  });

  it('names what is in the way: a file, or a place where nothing can be made (/proc)', () => {
    writeFileSync(path.join(root, 'file'), '');
    expect(() => makeDirs(path.join(root, 'file', 'reports'))).toThrow(/is not a directory|ENOTDIR/);
    expect(() => makeDirs('/proc/no-such-dir/reports')).toThrow(/\/proc\/no-such-dir/);
  });

  it('a --report-dir under /proc is one line and exit 2, not a run that never ends', async () => {
    const out = sink();
    const code = await main(['--base-url', 'http://127.0.0.1:9', '--report-dir', '/proc/no-such-dir/reports'], {}, { out: out.stream, err: out.stream });
    expect(code).toBe(2);
    expect(out.text()).toMatch(/^conformance: --report-dir \(or REPORT_DIR\): cannot create \/proc\/no-such-dir\/reports: .*\/proc\/no-such-dir/m);
  });
});
