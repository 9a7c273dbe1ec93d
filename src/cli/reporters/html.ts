import { createHash } from 'node:crypto';
import { levelWord, type ReaderCheck, type ReaderDocument } from '../../verdict/reader';
import { EXCHANGE_BUDGET_BYTES } from '../../harness/runner';
import { isUnjudged } from '../../verdict/outcome';
import { exitWords, type RunStatus } from '../../verdict/status';
import { judgedWords } from '../../verdict/coverage';
import { preconfNotJudged } from '../../verdict/scope';
import { coveredByRoots, isFailure, storedRoots } from './roots';
import { CHART_STYLE, latencySvg, timelineSvg } from './charts';
import { latencyOf, timelinesOf } from './metrics';
import { powerWords, samplingLine } from '../../harness/sampling';
import { answersWords, OUTCOME_WORDS, rootReason } from './outcome-words';
import { bySection, skippedByReason, withOutcome } from './grouping';
import { escapeHtml } from '../inert-text';
import { exchangeText, json } from './exchange-text';
import { quoteStatements, quoteLabel } from './failure-text';
import { violatedSection } from '../../harness/result';
import { observationText } from '../../harness/observation';

const esc = escapeHtml;

const STATUS_COLORS: Record<RunStatus, string> = { conformant: '#1a7f37', 'non-conformant': '#cf222e', incomplete: '#bc4c00' };

/** The status colour as a class (`s-conformant`, …): the page carries no style attributes, which its policy would refuse. */
export const statusClass = (status: RunStatus) => `s-${status}`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The head of a self-contained page: its own one stylesheet and one script are allowed by hash,
 * and nothing else loads — no external request, no other inline script, no form, no base — so
 * even an escaping slip elsewhere cannot make the page beacon to a target's host.
 */
export function pageHead(title: string, style: string, script?: string): string {
  const policy = [
    "default-src 'none'",
    `style-src ${sha256(style)}`,
    `script-src ${script === undefined ? "'none'" : sha256(script)}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${escapeHtml(policy)}"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${style}</style></head>`;
}

/** Shared by report.html and compare.html. */
export const BASE_STYLE = `
${Object.entries(STATUS_COLORS)
  .map(([st, c]) => `.s-${st}{--status:${c}}`)
  .join('')}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1b1f24;background:#f6f8fa}
main{max-width:1180px;margin:0 auto;padding:24px 28px 60px;background:#fff;min-height:100vh}
h1{font-size:1.45rem;margin:0 0 6px}h2{font-size:1.1rem;margin:28px 0 10px;padding-bottom:4px;border-bottom:1px solid #d8dee4}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}pre{background:#f6f8fa;border:1px solid #eaeef2;border-radius:6px;padding:8px;overflow:auto;white-space:pre-wrap;word-break:break-all;font:12px/1.4 ui-monospace,monospace;max-height:420px}
.pill{display:inline-block;color:#fff;background:var(--status);border-radius:14px;padding:2px 12px;font-weight:600;font-size:.95rem;vertical-align:middle}
.muted{color:#57606a}.small{font-size:12px}
.st-passed{color:#1a7f37}.st-failed{color:#cf222e;font-weight:600}.st-warning,.st-known-failure,.st-stale-expectation{color:#9a6700}.st-not-judged,.st-blocked{color:#8250df}.st-skipped{color:#57606a}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #eaeef2;padding:5px 8px;text-align:left;vertical-align:top}th{font-weight:600;background:#f6f8fa}`;

const STYLE = `${BASE_STYLE}
${CHART_STYLE}
.status{border-left:6px solid var(--status);padding:10px 16px;margin:14px 0;background:#f6f8fa;border-radius:4px}
.status .line{font-size:1.05rem;font-weight:600;color:var(--status)}.why{margin:6px 0 0 18px;padding:0}
.tiles{display:flex;gap:10px;margin:12px 0;flex-wrap:wrap}.tile{border:1px solid #d8dee4;border-radius:6px;padding:6px 14px;min-width:110px}.tile b{font-size:1.3rem;display:block}
.scope{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0}.scope dt{color:#57606a}.scope dd{margin:0}
.hint{color:#0969da;font-weight:600}.root{border:1px solid #ffcecb;background:#fff8f7;border-radius:6px;padding:8px 12px;margin:8px 0}.root.soft{border-color:#d8b9ff;background:#fbf7ff}
.toolbar{position:sticky;top:0;background:#fff;padding:8px 0;border-bottom:1px solid #d8dee4;display:flex;gap:6px;align-items:center;flex-wrap:wrap;z-index:2}
.toolbar button{border:1px solid #d0d7de;background:#f6f8fa;border-radius:6px;padding:3px 10px;cursor:pointer;font:inherit}.toolbar button.on{background:#0969da;color:#fff;border-color:#0969da}
.toolbar input{border:1px solid #d0d7de;border-radius:6px;padding:4px 8px;font:inherit;min-width:320px;margin-left:auto}
details.section{border:1px solid #d8dee4;border-radius:6px;margin:10px 0}details.section>summary{padding:8px 12px;cursor:pointer;background:#f6f8fa;border-radius:6px;font-weight:600}
.counts{font-weight:400;font-size:13px;margin-left:8px}.counts span{margin-right:10px}
.check{padding:6px 12px;border-top:1px solid #eaeef2}.check>summary{cursor:pointer}
.check .id{font-weight:600}.tag{font-size:11px;border:1px solid #d0d7de;border-radius:8px;padding:0 6px;margin-left:6px;color:#57606a}
.detail{margin:6px 0 4px 4px}.detail div{margin:2px 0}
details.passed-group{margin:0;padding:4px 12px;border-top:1px solid #eaeef2}details.passed-group>summary{cursor:pointer;color:#1a7f37}
.chart{max-width:100%;height:auto;border:1px solid #eaeef2;border-radius:6px;background:#fff}
[hidden]{display:none!important}`;

/** Filter by status and search by id; the page works (everything shown) without it. */
const SCRIPT = `
(function(){
  var filter='all', query='';
  var checks=[].slice.call(document.querySelectorAll('[data-outcome]'));
  function apply(){
    checks.forEach(function(el){
      var o=el.getAttribute('data-outcome'), id=el.getAttribute('data-id');
      var byStatus = filter==='all' || (filter==='failing' ? (o==='failed') : filter==='warn' ? (o==='warning'||o==='known-failure'||o==='stale-expectation') : filter==='unjudged' ? (o==='not-judged'||o==='blocked') : o===filter);
      el.hidden = !(byStatus && (!query || id.indexOf(query)>=0));
    });
    [].forEach.call(document.querySelectorAll('details.passed-group'),function(g){
      var shown=g.querySelectorAll('[data-outcome]:not([hidden])').length;
      g.hidden = shown===0; if(query||filter==='passed') g.open = shown>0;
    });
    [].forEach.call(document.querySelectorAll('details.section'),function(s){
      s.hidden = s.querySelectorAll('[data-outcome]:not([hidden])').length===0;
    });
  }
  [].forEach.call(document.querySelectorAll('.toolbar button'),function(b){
    b.addEventListener('click',function(){
      filter=b.getAttribute('data-filter');
      [].forEach.call(document.querySelectorAll('.toolbar button'),function(x){x.classList.toggle('on',x===b)});
      apply();
    });
  });
  var box=document.getElementById('search');
  box.addEventListener('input',function(){query=box.value.trim();apply();});
  // A link can carry a view: report.html#filter=failing or #q=rpc.getCode
  var f=/[#&]filter=([a-z-]+)/.exec(location.hash), q=/[#&]q=([^&]+)/.exec(location.hash);
  if(f){filter=f[1];[].forEach.call(document.querySelectorAll('.toolbar button'),function(x){x.classList.toggle('on',x.getAttribute('data-filter')===filter)});}
  if(q){query=decodeURIComponent(q[1]);box.value=query;}
  if(f||q)apply();
})();`;

function checkDetail(c: ReaderCheck, texts?: Record<string, string>): string {
  const d: string[] = [];
  if (c.reason) d.push(`<div>${esc(isFailure(c) ? rootReason(c) : c.reason)}</div>`);
  const quoted = isFailure(c) ? quoteStatements(c, texts) : undefined;
  if (quoted) d.push(`<div class="muted">${quoteLabel(c)}: ${esc(quoted)}</div>`);
  if (isFailure(c) && violatedSection(c) !== c.section)
    d.push(`<div class="muted">violated section ${esc(violatedSection(c))} (the check cites ${esc(c.section)})</div>`);
  if (c.expected !== undefined) d.push(`<div>expected: <code>${esc(observationText(c.expected))}</code></div>`);
  if (c.actual !== undefined) d.push(`<div>actual: <code>${esc(observationText(c.actual))}</code></div>`);
  if (c.blockedBy) d.push(`<div>not judged: blocked by <a href="#check-${esc(c.blockedBy)}"><code>${esc(c.blockedBy)}</code></a></div>`);
  else if (c.unreachable && isUnjudged(c.outcome)) d.push(`<div>not judged: ${c.unreachable === 'rest' ? 'REST' : 'JSON-RPC'} target unreachable</div>`);
  if (c.outOfScope) d.push(`<div class="muted">out of scope: ${esc(c.outOfScope.words)}</div>`);
  if (c.expectation) d.push(`<div>expectation: ${esc(c.expectation.reason)}${c.expectation.link ? ` — ${esc(c.expectation.link)}` : ''}</div>`);
  for (const n of c.notes ?? []) d.push(`<div class="muted">note: ${esc(n)}</div>`);
  if (c.metrics) d.push(`<details><summary class="small">metrics</summary><pre>${esc(json(c.metrics))}</pre></details>`);
  for (const e of c.exchanges)
    d.push(
      `<details><summary class="small"><code>${esc(`${e.request.method} ${e.request.url} → ${e.response ? `HTTP ${e.response.status}` : e.error}`)}</code></summary><pre>${esc(exchangeText(e))}</pre></details>`,
    );
  if (c.exchangeCount > c.exchanges.length)
    d.push(
      `<div class="muted small">${c.exchangeCount} exchange(s), ${c.exchanges.length} kept (only checks that did not pass keep theirs, the first and last up to ${EXCHANGE_BUDGET_BYTES / 1024} KiB)</div>`,
    );
  return d.join('');
}

function checkRow(c: ReaderCheck, texts?: Record<string, string>): string {
  const o = c.outcome;
  const body = checkDetail(c, texts);
  const head = `<span class="st-${o}">${esc(OUTCOME_WORDS[o])}</span> <code class="id">${esc(c.id)}</code> <span class="tag">${levelWord(c)}</span><span class="tag">${esc(c.section)}</span> <span class="muted">${esc(c.title)}</span> <span class="muted small">${c.durationMs} ms</span>${c.samples ? ` <span class="tag" title="${esc(powerWords(c.samples.judged))}">${esc(answersWords(c))}</span>` : ''}`;
  const open = o === 'failed' ? ' open' : '';
  return `<details class="check" id="check-${esc(c.id)}" data-id="${esc(c.id)}" data-outcome="${o}"${open}><summary>${head}</summary><div class="detail">${body || '<span class="muted">passed</span>'}</div></details>`;
}

function charts(doc: ReaderDocument): string {
  const latency = latencyOf(doc.checks);
  const timelines = timelinesOf(doc.checks);
  if (!latency && timelines.length === 0) {
    const why = !doc.scope.groups.includes('preconf')
      ? 'the pre-confirmation group did not run'
      : (preconfNotJudged(doc.scope) ?? 'no check recorded a measurement');
    return `<h2>Pre-confirmation timing</h2><p class="muted">Nothing measured in this run: ${esc(why)}.</p>`;
  }
  const out = ['<h2>Pre-confirmation timing</h2>'];
  for (const { id, timeline } of timelines) {
    out.push(
      `<p class="muted small">Timeline recorded by <code>${esc(id)}</code>: each row is one transaction looked for in one "pending" view, from eth_sendRawTransaction (0 ms) to the first answer that showed it; ◆ marks the seal.</p>`,
      timelineSvg(timeline),
    );
  }
  if (latency) {
    const all = latency.all
      ? `p50 <b>${latency.all.p50} ms</b>, p95 <b>${latency.all.p95} ms</b>, max ${latency.all.max} ms over ${latency.all.n}${latency.boundsMs ? ` (judged against p50 ≤ ${latency.boundsMs.p50} ms, p95 ≤ ${latency.boundsMs.p95} ms)` : ''}`
      : 'not judged over all methods';
    out.push(
      `<p class="muted small">Latency send → visible at "pending", as <code>${esc(latency.id)}</code> recorded it: ${all}. Bars span p50–p95, the thin line reaches the max, dots are the timeline's samples.</p>`,
      latencySvg(latency),
    );
  }
  return out.join('\n');
}

/** One self-contained page: status and scope first, root causes, charts, then checks by spec section. */
export function renderHtml(doc: ReaderDocument): string {
  const s = doc.counts;
  const status = statusClass(doc.status);
  const roots = storedRoots(doc);
  // Each root under the heading its stored effect names: those that fail the run, then those that only kept checks from being judged.
  const rootSection = (heading: string, listed: typeof roots) =>
    listed.length
      ? `<h2>${heading}</h2>` +
        listed
          .map((r) => {
            const c = r.result;
            const head = c
              ? `<a href="#check-${esc(c.id)}"><code>${esc(c.id)}</code></a> <span class="muted">(spec ${esc(violatedSection(c))})</span> — ${esc(r.failsRun ? rootReason(c) : `${OUTCOME_WORDS[c.outcome]}: ${c.reason}`)}`
              : `<b>${esc(r.id)}</b>${r.reason ? ` — ${esc(r.reason)}` : ''}`;
            const eva =
              c && (c.expected !== undefined || c.actual !== undefined)
                ? `<div class="small">expected <code>${esc(c.expected ? observationText(c.expected) : '—')}</code>, actual <code>${esc(c.actual ? observationText(c.actual) : '—')}</code></div>`
                : '';
            const blocked = r.blocked.length
              ? `<div class="small">blocked ${r.blocked.length} check(s), not judged because of it: ${r.blocked.map((id) => `<a href="#check-${esc(id)}"><code>${esc(id)}</code></a>`).join(', ')}</div>`
              : '';
            // A check's own hint, or an interface root's (throttled: --max-rps; credentials: the header flag).
            const hintText = c ? c.hint : r.record.hint;
            const hint = hintText ? `<div class="hint">→ ${esc(hintText)}</div>` : '';
            return `<div class="root${r.failsRun ? '' : ' soft'}">${head}${hint}${eva}${blocked}</div>`;
          })
          .join('\n')
      : '';
  const rootHtml =
    rootSection(
      'What fails the run',
      roots.filter((r) => r.failsRun),
    ) +
    rootSection(
      'What kept checks from being judged',
      roots.filter((r) => !r.failsRun),
    );
  // Checks a root covers (blocked, or of an unreachable interface) are listed under their root.
  const covered = coveredByRoots(doc);
  const unjudged = withOutcome(doc.checks, 'not-judged').filter((c) => !covered.has(c.id));
  const stale = withOutcome(doc.checks, 'stale-expectation');
  const staleHtml = stale.length
    ? `<h2>Stale expectations</h2><p class="muted">Listed in the expectations file as known failures, these passed: news, not a failure of the target. Remove them from the file.</p><ul>${stale.map((c) => `<li class="st-stale-expectation"><a href="#check-${esc(c.id)}"><code>${esc(c.id)}</code></a> — ${esc(rootReason(c))}</li>`).join('')}</ul>`
    : '';
  const unjudgedHtml = unjudged.length
    ? `<h2>Not judged</h2><ul>${unjudged.map((c) => `<li><a href="#check-${esc(c.id)}"><code>${esc(c.id)}</code></a> <span class="tag">${levelWord(c)}</span> — ${esc(c.reason.split('\n')[0])}</li>`).join('')}</ul>`
    : '';
  const skipped = skippedByReason(doc.checks);
  const skippedHtml = skipped.length
    ? `<h2>Skipped and out of scope</h2><ul>${skipped.map((g) => `<li>${g.outOfScope ? '<b>out of scope</b>' : 'skipped'}: ${esc(g.reason)} — ${g.ids.length} check(s): ${g.ids.map((id) => `<a href="#check-${esc(id)}"><code>${esc(id)}</code></a>`).join(', ')}</li>`).join('')}</ul>`
    : '';

  const sections = bySection(doc)
    .map((g) => {
      const shown = g.checks.filter((c) => c.outcome !== 'passed');
      const passed = g.checks.filter((c) => c.outcome === 'passed');
      const n = g.counts;
      const part = (k: number, cls: string, words: string) => (k ? `<span class="st-${cls}">${k} ${words}</span>` : '');
      const counts = `<span class="counts"><span class="st-passed">${n.passed} passed</span>${part(n.failed, 'failed', 'failed')}${part(n['stale-expectation'], 'stale-expectation', 'stale expectation')}${part(n.warning, 'warning', 'advisory warning')}${part(n['known-failure'], 'known-failure', 'known failure')}${part(n['not-judged'] + n.blocked, 'not-judged', 'not judged')}${part(n.skipped, 'skipped', 'skipped')}</span>`;
      const folded = passed.length
        ? `<details class="passed-group"><summary>${passed.length} passed</summary>${passed.map((c) => checkRow(c)).join('\n')}</details>`
        : '';
      return `<details class="section" open><summary>${esc(g.section)} ${esc(g.title)} ${counts}</summary>${shown.map((c) => checkRow(c, doc.statements)).join('\n')}${folded}</details>`;
    })
    .join('\n');

  const sc = doc.scope;
  const scope = `<dl class="scope">
<dt>target</dt><dd>${doc.target.embedded ? '<b>embedded reference target</b> (started by the suite on loopback) — ' : ''}REST <code>${esc(doc.target.baseUrl ?? '—')}</code> · JSON-RPC <code>${esc(doc.target.rpcUrl ?? '—')}</code></dd>
<dt>groups run</dt><dd>${esc(sc.groups.join(', '))}${sc.grep !== undefined ? ` (only ids matching <code>${esc(sc.grep)}</code>)` : ''}</dd>
<dt>interfaces in scope</dt><dd>${esc(sc.interfaces.join(', ') || 'none')}</dd>
<dt>profile</dt><dd><code>${sc.profile}</code></dd>
<dt>pre-confirmed state</dt><dd>${sc.signer ? 'in scope: a signer key was given and checks that send transactions selected' : `not in scope: ${esc(preconfNotJudged(sc)!)}`}</dd>
${sc.coverage ? `<dt>judged per interface</dt><dd>${judgedWords(sc.coverage).map(esc).join('<br>')}</dd>` : ''}
<dt>history</dt><dd>${sc.archive ? 'required (--archive)' : 'not required (a full node may prune old state)'}</dd>
<dt>not judged</dt><dd>${sc.notJudged.length ? sc.notJudged.map(esc).join('<br>') : 'nothing left out'}</dd>
</dl>`;

  const total = doc.checks.length;
  const filters = [
    ['all', `all ${total}`],
    ['failing', `fails the run ${s.failed}`],
    ['warn', `advisory/known/stale ${s.warning + s['known-failure'] + s['stale-expectation']}`],
    ['unjudged', `not judged ${s['not-judged'] + s.blocked}`],
    ['skipped', `skipped ${s.skipped}`],
    ['passed', `passed ${s.passed}`],
  ];
  return `<!doctype html><html lang="en">${pageHead(`Conformance: ${doc.status} — ${doc.target.embedded ? 'embedded reference target' : (doc.target.baseUrl ?? doc.target.rpcUrl ?? '')}`, STYLE, SCRIPT)}<body><main>
<h1>Tokenized stocks conformance <span class="pill ${status}">${esc(doc.status)}</span>${doc.target.embedded ? ' <span class="tag">embedded reference target</span>' : ''}</h1>
<div class="muted">spec ${esc(doc.spec.version)} · ${esc(doc.suite.name)} ${esc(doc.suite.version)} · ${esc(doc.startedAt)} · ${(doc.durationMs / 1000).toFixed(1)} s${doc.interrupted ? ` · <b>partial: ${esc(doc.interrupted)}</b>` : ''}</div>
${doc.sampling ? `<div class="muted">${esc(samplingLine(doc.sampling))}</div>` : ''}
<div class="status ${status}"><div class="line">${esc(doc.headline)}</div><div>${esc(exitWords(doc.exitCode))}</div>${doc.statusReasons.length ? `<ul class="why">${doc.statusReasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>` : ''}</div>
<div class="tiles"><div class="tile st-passed"><b>${s.passed}</b>passed</div><div class="tile st-failed"><b>${s.failed}</b>fail the run</div><div class="tile st-warning"><b>${s.warning + s['known-failure']}</b>advisory / known</div>${s['stale-expectation'] ? `<div class="tile st-stale-expectation"><b>${s['stale-expectation']}</b>stale expectations</div>` : ''}<div class="tile st-not-judged"><b>${s['not-judged'] + s.blocked}</b>not judged</div><div class="tile st-skipped"><b>${s.skipped}</b>skipped</div></div>
${scope}
${rootHtml}
${staleHtml}
${unjudgedHtml}
${charts(doc)}
${skippedHtml}
<h2>Checks by spec section</h2>
<div class="toolbar">${filters.map(([f, label], i) => `<button type="button" data-filter="${f}"${i === 0 ? ' class="on"' : ''}>${esc(label)}</button>`).join('')}<input id="search" type="search" placeholder="search by check id, e.g. rpc.getCode" aria-label="search by check id"></div>
${sections}
</main><script>${SCRIPT}</script></body></html>
`;
}
