// docs/certification.md's keyless recipe attests the files the Action wrote: the paths come from
// the Action's own outputs (report-dir, status), as in examples/certify-node.yml, never a folder
// no documented setup writes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Step {
  id?: string;
  uses?: string;
  if?: string;
  with?: Record<string, unknown>;
}

/** The first YAML block of the doc's section `heading`. */
function yamlUnder(file: string, heading: string): { steps: Step[]; permissions: Record<string, string> } {
  const text = read(file);
  const section = text.slice(text.indexOf(`\n${heading}\n`));
  const block = /```yaml\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error(`no yaml block under ${heading} in ${file}`);
  return YAML.parse(block[1]);
}

const isAction = (s: Step) => /^[\w.-]+\/tokenized-stocks-conformance@[\w.-]+$/.test(s.uses ?? '');
const isAttest = (s: Step) => /^actions\/attest@v\d+$/.test(s.uses ?? '');

describe('the keyless recipe of docs/certification.md', () => {
  const doc = yamlUnder('docs/certification.md', '## In CI without a key (keyless, Sigstore)');
  const example = (YAML.parse(read('examples/certify-node.yml')) as { jobs: { certify: { steps: Step[] } } }).jobs.certify.steps;
  const outputs = Object.keys((YAML.parse(read('action.yml')) as { outputs: Record<string, unknown> }).outputs);

  it('attests results.json and predicate.json in the folder the Action step of the same recipe says it wrote', () => {
    const action = doc.steps.find(isAction)!;
    const attest = doc.steps.find(isAttest)!;
    expect(action.id).toBeTruthy();
    const dir = `\${{ steps.${action.id}.outputs.report-dir }}`;
    expect(attest.with).toMatchObject({ 'subject-path': `${dir}/results.json`, 'predicate-path': `${dir}/predicate.json` });
    for (const used of `${attest.if} ${JSON.stringify(attest.with)}`.matchAll(/steps\.[\w-]+\.outputs\.([\w-]+)/g)) expect(outputs).toContain(used[1]);
    expect(doc.permissions).toMatchObject({ 'id-token': 'write', attestations: 'write' });
  });

  it('is the step examples/certify-node.yml runs', () => {
    const [docAttest, exampleAttest] = [doc.steps.find(isAttest)!, example.find(isAttest)!];
    expect(doc.steps.find(isAction)!.id).toBe(example.find(isAction)!.id);
    expect({ if: docAttest.if, with: docAttest.with }).toEqual({ if: exampleAttest.if, with: exampleAttest.with });
  });
});
