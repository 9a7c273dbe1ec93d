import { cleanStrings, forTerminal, jsonForLogs, mdCode, mdFence, mdText, neutraliseWorkflowCommands, stripControls } from '../../src/cli/inert-text';

const MarkdownIt = require('markdown-it') as new (opts: object) => { render(md: string): string; renderInline(md: string): string };
// GitHub's renderer (cmark-gfm) autolinks scheme URLs and www. names; linkify-it's fuzzy mode also
// links bare domains and e-mail addresses, which GitHub does not, so that mode is off here.
const md = new MarkdownIt({ html: true, linkify: true });
(md as unknown as { linkify: { set(o: object): void } }).linkify.set({ fuzzyLink: false, fuzzyEmail: false });

describe('terminal and CI log', () => {
  it('shows C0 (but tab and newline), DEL, C1 and bidi overrides as visible stand-ins', () => {
    expect(stripControls('a\u001b[2Jb\u0007c\rd\te\nf\u007fg\u009bh\u202ei')).toBe('a␛[2Jb␇c␍d\te\nf␡g\ufffdh\ufffdi');
  });

  it('neutralises workflow commands at a line start (after blanks) and the ##[ form anywhere', () => {
    const out = neutraliseWorkflowCommands('::add-mask::x\n  ::error::y\nok :: here\nz ##[error]w');
    expect(out.split('\n').filter((l) => /^\s*::/.test(l) || l.includes('##['))).toEqual([]);
    expect(out.replace(/\u200b/g, '')).toBe('::add-mask::x\n  ::error::y\nok :: here\nz ##[error]w');
  });

  it('cleans every string of a value, keys too, and bounds the depth it walks', () => {
    expect(cleanStrings({ 'k\u001b': ['v\u0007', 1, null, { x: '::a' }] }, forTerminal)).toEqual({ 'k␛': ['v␇', 1, null, { x: ':\u200b:a' }] });
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(() => cleanStrings(deep, forTerminal)).not.toThrow();
  });

  it('escapes JSON for a log without changing the data it decodes to', () => {
    const value = { s: 'a ##[error] b \u0085 \u202e c' };
    const text = jsonForLogs(JSON.stringify(value));
    expect(text).not.toMatch(/##\[|[\u0080-\u009f\u202e]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('Markdown', () => {
  const hostile = 'a ``` b ```` c ` <img src="http://127.0.0.1:9/x"> ![i](http://127.0.0.1:9/i) # h | p';

  it('a code span outlasts any backtick run and renders the text verbatim', () => {
    const html = md.renderInline(mdCode(hostile));
    expect(html).toMatch(/^<code>.*<\/code>$/);
    expect(html).not.toMatch(/<img|<a\s/);
    expect(mdCode('`x`')).toBe('`` `x` ``');
  });

  it('in a table cell, pipes do not split the cell', () => {
    const html = md.render(`| a | b |\n|---|---|\n| ${mdCode('x | y', { table: true })} | ${mdText('p | q')} |`);
    expect(html.match(/<td>/g)).toHaveLength(2);
  });

  it('a fence is longer than any backtick run, so the text cannot close it', () => {
    const html = md.render(mdFence('```\n# heading\n<img src=x>\n````'));
    expect(html).toMatch(/^<pre><code class="language-text">/);
    expect(html).not.toMatch(/<h1>|<img/);
  });

  it('prose is inert: no emphasis, link, image, autolink, heading, list or HTML', () => {
    for (const s of [
      hostile,
      '# heading',
      '- item',
      '1. item',
      '> quote',
      '*em* _em_',
      '[l](http://127.0.0.1:9)',
      'see https://127.0.0.1:9/x or www.example.com',
      '&lt;b&gt; <b>x</b>',
    ]) {
      const html = md.render(mdText(s));
      expect({ s, html }).toEqual({ s, html: expect.stringMatching(/^<p>[^<]*<\/p>\n$/) });
    }
    expect(mdText('www.example.com http://x')).not.toMatch(/www\.|:\/\//i);
  });
});

describe('workflow commands behind any blank the runner strips', () => {
  // .NET's String.Trim() (the runner's) strips every Unicode White_Space character; U+FEFF, U+180E
  // and the zero-width characters are covered as well.
  const BLANKS =
    '\t\u000b\u000c \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\u180e\u200b\u200c\u200d\u2060';
  it.each([...BLANKS].map((b) => [`U+${b.charCodeAt(0).toString(16).padStart(4, '0')}`, b]))('%s before :: leaves no command', (_, blank) => {
    for (const text of [`${blank}::error::x`, `ok\n${blank}${blank}::add-mask::y`, `${blank} ${blank}::stop-commands::z`]) {
      const out = forTerminal(text);
      // The runner's view of each line: controls shown as pictures already, the blanks trimmed.
      const trimmed = (l: string) => [...l].slice([...l].findIndex((c) => !BLANKS.includes(c))).join('');
      expect(out.split('\n').filter((l) => trimmed(l).startsWith('::'))).toEqual([]);
      expect(out.replace(/:\u200b(?=:)/g, ':')).toBe(stripControls(text)); // only a zero-width space between the colons
    }
  });
});
