// The Action's own workflow commands carry a root cause's reason, which is the target's text: it
// reaches the step log inert (no ESC, BEL, C1 control or bidi override acting on the log, no `##[`
// or line-start `::` command form), as the suite's console lines do; an `::add-mask::` value goes
// to the runner exactly as the secret is.
import { readerCheck } from '../../src/verdict/reader';
import { command } from '../../src/action/commands';
import { annotation, noReportSummary } from '../../src/action/messages';
import { checkResult } from '../support/documents';

const HOSTILE = 'bad \u001b]0;pwned\u0007\u001b[2J\u001b[8mhidden \u009b2J \u202eevil ##[error]old-form\n::error file=forged.ts::forged';

describe('the Action’s annotations are inert in the step log', () => {
  it('a root cause whose reason carries terminal sequences and command forms', () => {
    const check = {
      ...checkResult('rpc.x', 'failed', { title: 'the check', reason: HOSTILE, statements: ['4.2.1'], section: '4.2' }),
      outcome: 'failed',
      effect: 'fails-run',
    } as const;
    const line = annotation({ check: readerCheck(check), reason: HOSTILE, covers: [] }, 'the step summary');
    expect(line).toMatch(/^::error title=rpc\.x \(spec 4\.2\)::the check: bad /);
    expect(line).not.toMatch(/[\u0007\u001b\u0080-\u009f\u202a-\u202e]/);
    expect(line).not.toContain('##[');
    // One log line: the forged command stays inside the message, broken.
    expect(line.trimEnd().split('\n')).toHaveLength(1);
    expect(line).not.toContain('%0A::error');
  });

  it('a status line of the Action with a reason from results.json', () => {
    expect(command('error', { title: 'conformance: non-conformant' }, `exit 1: ${HOSTILE}`)).not.toMatch(/[\u0007\u001b\u009b\u202e]|##\[/);
  });

  it('::add-mask:: keeps the secret exactly', () => {
    expect(command('add-mask', {}, 's3cret##[x\u202e')).toBe('::add-mask::s3cret##[x\u202e\n');
  });
});

const MarkdownIt = require('markdown-it') as new (opts: object) => { render(md: string): string };
// GitHub's renderer autolinks scheme URLs and www. names (cmark-gfm); linkify's fuzzy forms are off, as there.
const md = new MarkdownIt({ html: true, linkify: true });
(md as unknown as { linkify: { set(o: object): void } }).linkify.set({ fuzzyLink: false, fuzzyEmail: false });

describe('the step summary of a run without a report', () => {
  it("quotes the suite's lines, which quote the target (a WWW-Authenticate challenge), as inert Markdown: no link, image or HTML", () => {
    const challenge =
      'rpc-url: refused the run\'s credentials: eth_chainId was answered HTTP 401 Unauthorized (WWW-Authenticate: Bearer realm="https://127.0.0.1:9/x" www.example.com ![i](http://127.0.0.1:9/i.png) mailto:a@example.com ~~s~~ <img src=x onerror=alert(1)>)';
    const text = noReportSummary('configuration-error', 2, [challenge, 'profile: "private" is not one of public, dedicated']);
    const html = md.render(text);
    expect(html).not.toMatch(/<(a|img|del|s)\b/i);
    expect(html).toContain('<blockquote>');
    expect(text).toMatch(/^> profile: "private" is not one of public, dedicated/m);
  });
});
