import { type RunDocument, isRunFailure } from '../results';
import { exchangeText, json, verdictOf } from './shared';

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1b1f24;max-width:1200px}
h1{font-size:1.4rem}h2{font-size:1.1rem}table{border-collapse:collapse;width:100%}td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
.passed{color:#1a7f37}.failed{color:#cf222e;font-weight:600}.advisory,.expected{color:#9a6700}.skipped,.inconclusive{color:#57606a}
pre{background:#f6f8fa;padding:8px;overflow:auto;white-space:pre-wrap;word-break:break-all;font-size:12px}
details{margin:4px 0}code{font-size:12px}.tag{font-size:11px;border:1px solid #d0d7de;border-radius:8px;padding:0 6px}`;

function cls(c: RunDocument['checks'][number]): string {
  if (c.expectation?.outcome === 'expected-failure') return 'expected';
  if (isRunFailure(c)) return 'failed';
  if (c.status === 'failed') return 'advisory';
  return c.status;
}

/** A self-contained page: no scripts, no external assets. */
export function renderHtml(doc: RunDocument): string {
  const s = doc.summary;
  const rows = doc.checks
    .map((c) => {
      const detail: string[] = [];
      if (c.reason) detail.push(`<div>${esc(c.reason)}</div>`);
      if (c.expected !== undefined) detail.push(`<div>expected: <code>${esc(JSON.stringify(c.expected) ?? '')}</code></div>`);
      if (c.actual !== undefined) detail.push(`<div>actual: <code>${esc((JSON.stringify(c.actual) ?? '').slice(0, 500))}</code></div>`);
      if (c.expectation) detail.push(`<div>expectation: ${esc(c.expectation.reason)}${c.expectation.link ? ` — ${esc(c.expectation.link)}` : ''}</div>`);
      for (const n of c.notes ?? []) detail.push(`<div>note: ${esc(n)}</div>`);
      if (c.metrics) detail.push(`<pre>${esc(json(c.metrics))}</pre>`);
      for (const e of c.exchanges) detail.push(`<details><summary>${esc(`${e.request.method} ${e.request.url} → ${e.response ? `HTTP ${e.response.status}` : e.error}`)}</summary><pre>${esc(exchangeText(e))}</pre></details>`);
      return `<tr id="check-${esc(c.id)}"><td><code>${esc(c.id)}</code><br>${esc(c.title)}</td><td>${esc(c.failedSection ?? c.section)}</td><td><span class="tag">${c.level}</span></td><td class="${cls(c)}">${esc(verdictOf(c))}</td><td>${detail.join('')}</td><td>${c.durationMs}</td></tr>`;
    })
    .join('\n');
  // A person opens the report to see what failed: those come first, linked to their rows.
  const failing = doc.checks.filter(isRunFailure);
  const failures = failing.length
    ? `<h2 class="failed">What fails the run</h2><ul>${failing.map((c) => `<li><a href="#check-${esc(c.id)}"><code>${esc(c.id)}</code></a> (spec ${esc(c.failedSection ?? c.section)}): ${esc(c.reason)}</li>`).join('')}</ul>`
    : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Conformance report — ${doc.exitCode === 0 ? 'conformant' : 'not conformant'}</title><style>${STYLE}</style></head><body>
<h1>Tokenized stocks conformance: ${doc.exitCode === 0 ? '<span class="passed">no required check failed</span>' : '<span class="failed">a required check failed</span>'}</h1>
<p>Spec ${esc(doc.spec.version)} · suite ${esc(doc.suite.name)} ${esc(doc.suite.version)} · profile <code>${doc.target.profile}</code> · REST <code>${esc(doc.target.baseUrl ?? '—')}</code> · JSON-RPC <code>${esc(doc.target.rpcUrl ?? '—')}</code> · ${esc(doc.startedAt)} · ${(doc.durationMs / 1000).toFixed(1)} s${doc.interrupted ? ` · <b>partial: ${esc(doc.interrupted)}</b>` : ''}</p>
<p><b>${s.passed}</b> passed · <b>${s.requiredFailed}</b> required failed · ${s.advisoryFailed} advisory failed · ${s.expectedFailures} expected failures · ${s.unexpectedPasses} unexpected passes · ${s.inconclusive} inconclusive · ${s.skipped} skipped · ${s.total} total</p>
${failures}
<table><thead><tr><th>check</th><th>section</th><th>level</th><th>verdict</th><th>details</th><th>ms</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>
`;
}
