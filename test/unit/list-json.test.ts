// --list --json: a script's question answered in JSON on stdout, never the tab-separated text.
import { main } from '../../src/cli/main';
import { allChecks } from '../../suites';
import { capture } from '../support/sink';

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const [out, err] = [capture(), capture()];
  const code = await main(argv, {}, { out: out.stream, err: err.stream });
  return { code, out: out.text(), err: err.text() };
}

describe('--list --json', () => {
  it('prints one JSON document whose checks carry the fields results.json gives each check', async () => {
    const r = await run(['--list', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { suite: { name: string }; spec: { version: string }; checks: Array<Record<string, unknown>> };
    expect(doc.suite.name).toBe('tokenized-stocks-conformance');
    const catalogue = allChecks();
    expect(doc.checks).toEqual(catalogue.map(({ id, title, statements, section, level, needs }) => ({ id, title, statements, section, level, needs })));
  });

  it('lists what --only and --grep select, as the text does', async () => {
    const [asJson, asText] = await Promise.all([
      run(['--list', '--json', '--only', 'rpc', '--grep', 'getCode']),
      run(['--list', '--only', 'rpc', '--grep', 'getCode']),
    ]);
    const ids = (JSON.parse(asJson.out) as { checks: Array<{ id: string }> }).checks.map((c) => c.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).toEqual(
      asText.out
        .trim()
        .split('\n')
        .map((line) => line.split('\t')[0]),
    );
  });

  it('a selection of nothing is the same mistake as without --json: exit 2, said on stderr, nothing on stdout', async () => {
    const r = await run(['--list', '--json', '--grep', 'no-such-check-id-at-all']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/selected no check/);
  });
});
