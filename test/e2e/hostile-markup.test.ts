/**
 * A hostile target whose every answer carries markup, terminal escapes and CI workflow commands.
 * Whatever it says, the reports the suite writes must show it as data: no image, link, heading
 * or HTML of the target's in summary.md (rendered by a real Markdown renderer), a policy in
 * report.html that forbids any external load, and nothing a terminal or a CI log would obey.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli, type CliRun } from '../support/cli';

const MarkdownIt = require('markdown-it') as new (opts: object) => { render(md: string): string };

const BEACON = 'http://127.0.0.1:9/beacon';
const PAYLOAD = [
  'x```',
  '# ✅ conformant',
  `![b](${BEACON}.png) <img src="${BEACON}.gif"> [click](${BEACON})`,
  '`one` ``two`` <b>bold</b> *em* | pipe |',
  '\u001b]0;pwned\u0007\u001b[2J\rover',
  '::add-mask::abc',
  '  ::error::forged annotation',
  'x ##[error]old form \u009b31m \u202eevil',
  'nul \u0000 here',
].join('\n');

/** REST: a list whose every string field is the payload. JSON-RPC: every call an error carrying it. */
function hostileServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const token = {
    contract_address: PAYLOAD,
    symbol: PAYLOAD,
    name: PAYLOAD,
    decimals: 18,
    icon_url: PAYLOAD,
    total_supply: 1,
    isin: PAYLOAD,
    multiplier: 1,
    paused_features: [],
    nav_price: 1,
    nav_price_updated_at: PAYLOAD,
  };
  const rpcError = (id: unknown) => ({ jsonrpc: '2.0', id, error: { code: -32000, message: PAYLOAD, data: PAYLOAD } });
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-note', PAYLOAD.replace(/[^\x20-\x7e]/g, '?'));
      if (req.method === 'GET') return res.end(JSON.stringify({ tokens: [token] }));
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return res.end(JSON.stringify(rpcError(null)));
      }
      const reply = Array.isArray(parsed) ? parsed.map((r) => rpcError((r as { id?: unknown }).id)) : rpcError((parsed as { id?: unknown }).id);
      res.end(JSON.stringify(reply));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

/** Lines a terminal or GitHub's runner would act on: escape sequences, C0 and C1 controls, workflow commands. */
function obeyedLines(text: string): string[] {
  return text.split('\n').filter((l) => /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/.test(l) || /^\s*::/.test(l) || l.includes('##['));
}

describe('a target answering with markup, escapes and workflow commands', () => {
  let target: Awaited<ReturnType<typeof hostileServer>>;
  let dir: string;
  let run: CliRun;
  const file = (name: string) => readFileSync(path.join(dir, name), 'utf8');

  beforeAll(async () => {
    target = await hostileServer();
    dir = mkdtempSync(path.join(tmpdir(), 'hostile-'));
    run = await runCli(['--base-url', target.url, '--rpc-url', target.url, '--only', 'rest,rpc', '--report-dir', dir, '--timeout-ms', '3000']);
  }, 120_000);
  afterAll(() => target?.close());

  it('is judged non-conformant, with every report written', () => {
    expect(run.code).toBe(1);
    expect(JSON.parse(file('results.json')).status).toBe('non-conformant');
  });

  it('summary.md renders the payload as text: no image, link, heading or HTML of the target', () => {
    const md = file('summary.md');
    expect(md).toContain('pwned'); // the payload is shown, as data
    const html = new MarkdownIt({ html: true, linkify: true }).render(md);
    expect(html).not.toMatch(/<img|<a\s|<b>|<script/i);
    expect(html).not.toMatch(/<[a-z][^>]*\s(src|href)=/i); // the payload may be shown as text, never fetched or linked
    expect(html).not.toMatch(/<h[1-6]>✅ conformant/); // the target's heading stays text
    expect(html.match(/<h1>/g)).toHaveLength(1);
    expect(obeyedLines(md)).toEqual([]);
  });

  it('report.html escapes the payload and forbids every external load and foreign script', () => {
    const html = file('report.html');
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-[^']+'; img-src data:/,
    );
    expect(html).not.toMatch(/<img|<b>bold/);
    expect(html).not.toMatch(/(src|href)="http/);
    expect(html).not.toMatch(/style="/);
    expect(html.match(/<script>/g)).toHaveLength(1);
  });

  it('the console, junit.xml, results.json and report.html carry nothing a terminal or a CI log would obey', () => {
    expect(run.stdout).toContain('rest.');
    for (const [name, text] of [
      ['console', run.stdout + run.stderr],
      ['junit.xml', file('junit.xml')],
      ['results.json', file('results.json')],
      // Read with `cat` or printed by a CI step as often as opened in a browser.
      ['report.html', file('report.html')],
    ]) {
      expect({ name, lines: obeyedLines(text) }).toEqual({ name, lines: [] });
    }
    // The data itself is intact in results.json: the escapes decode to the same characters.
    expect(file('results.json')).toContain('\\u0023#[error]');
  });
});
