// A user's day, round 2, in unit tests: what summary.md says of a --grep pattern, the defaults the
// files users copy state, and the keys and names people paste.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { renderSummary } from '../../src/cli/reporters/summary';
import { OPTIONS } from '../../src/cli/options';
import { checkResult, FULL_SCOPE, runDocument } from '../support/documents';

const ROOT = path.resolve(__dirname, '../..');

describe('summary.md with a --grep pattern', () => {
  it('keeps the backslashes of the pattern in its status line, escaped as its bullets escape them', () => {
    const doc = runDocument([checkResult('rest.token.symbol', 'passed', { needs: ['rest'] })], { ...FULL_SCOPE, grep: /rest\.token\./ });
    const md = renderSummary(doc);
    const status = md.split('\n').find((l) => l.startsWith('**Status: '))!;
    // Markdown renders `\\.` as `\.`: the reader sees the pattern as typed.
    expect(status).toContain('--grep rest\\\\.token\\\\.');
    const bullet = md.split('\n').find((l) => l.startsWith('- ') && l.includes('--grep'))!;
    expect(bullet).toContain('rest\\\\.token\\\\.');
  });
});

describe('.env.example', () => {
  /** Each variable of .env.example with the defaults its comment block states. */
  const documented = (): Map<string, string[]> => {
    const out = new Map<string, string[]>();
    let comment: string[] = [];
    for (const line of readFileSync(path.join(ROOT, '.env.example'), 'utf8').split('\n')) {
      if (line.startsWith('#')) comment.push(line);
      const variable = /^([A-Z_]+)=/.exec(line)?.[1];
      if (variable) {
        out.set(
          variable,
          [...comment.join(' ').matchAll(/default:? (\w[\w.]*)/g)].map((m) => m[1]),
        );
        comment = [];
      }
    }
    return out;
  };

  it('states the same defaults as --help and docs/flags.md (one table: src/cli/options.ts)', () => {
    const stated = documented();
    expect(stated.get('CONCURRENCY')).toEqual(['16']);
    for (const [flag, variable, , what] of OPTIONS) {
      const defaults = stated.get(variable);
      const fromHelp = /\(default (\w+)/.exec(what)?.[1];
      if (!defaults?.length || fromHelp === undefined) continue;
      expect([flag, defaults]).toEqual([flag, expect.arrayContaining([fromHelp])]);
    }
  });
});
