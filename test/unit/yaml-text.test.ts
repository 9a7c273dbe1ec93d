import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { parsedYamlName, parseShippedYaml } from '../../src/harness/yaml-text';

// The build keeps the parsed YAML of specs/ (bin/build.js), and a run reads that instead of
// loading the yaml package: the values must be the very values the YAML holds, and a text the
// build did not see (an edited spec, a run from source) must still be parsed.
const ROOT = path.join(__dirname, '..', '..');
const shipped = readdirSync(path.join(ROOT, 'specs')).filter((f) => /\.ya?ml$/.test(f));

describe('the parsed YAML a build keeps', () => {
  it.each(shipped)("holds specs/%s's value, named by its text", (name) => {
    const text = readFileSync(path.join(ROOT, 'specs', name), 'utf8');
    const built = JSON.parse(readFileSync(path.join(ROOT, 'dist', 'parsed-yaml', parsedYamlName(text)), 'utf8')) as unknown;
    expect(built).toEqual(YAML.parse(text));
  });

  it('is what a run from the build reads: the spec is loaded without the yaml package', () => {
    const script = `
      const { loadSpec } = require(${JSON.stringify(path.join(ROOT, 'dist', 'src', 'harness', 'spec-rules.js'))});
      const spec = loadSpec();
      const yaml = Object.keys(require.cache).filter((m) => m.includes('/node_modules/yaml/'));
      process.stdout.write(JSON.stringify({ sections: spec.sections.length, yaml }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { sections: number; yaml: string[] };
    expect(out.yaml).toEqual([]);
    expect(out.sections).toBeGreaterThan(20);
  });

  it('is not used for a text it was not made from: that text is parsed (the build, and a run from source)', () => {
    const text = readFileSync(path.join(ROOT, 'specs', 'rules.yaml'), 'utf8').replace(/^title: .*$/m, 'title: "edited after the build"');
    expect(YAML.parse(text)).toMatchObject({ title: 'edited after the build' });
    const built = require(path.join(ROOT, 'dist', 'src', 'harness', 'yaml-text.js')) as typeof import('../../src/harness/yaml-text');
    expect(built.parseShippedYaml(text)).toEqual(YAML.parse(text));
    expect(parseShippedYaml(text)).toEqual(YAML.parse(text));
    expect(parseShippedYaml('a: [1, "two"]\n')).toEqual({ a: [1, 'two'] });
  });
});
