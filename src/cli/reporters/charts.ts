import type { Timeline } from '../../harness/preconf/pass';
import { SPEC_REFRESH_MS } from '../../harness/preconf/timing';
import type { LatencyDistribution } from './metrics';
import { escapeHtml } from '../inert-text';
import { maxOf, minOf } from '../../harness/many';

/** Inline SVG charts for report.html: no script, no font or file to fetch. */

const esc = escapeHtml;

/** One colour per "pending" view, stable across charts. */
const METHOD_COLORS: Record<string, string> = {
  eth_getTransactionCount: '#0969da',
  eth_getBlockReceipts: '#8250df',
  eth_getCode: '#1a7f37',
  eth_estimateGas: '#bc4c00',
};
const FALLBACK_COLORS = ['#0550ae', '#953800', '#116329', '#6639ba'];

function colorOf(method: string, all: string[]): string {
  return METHOD_COLORS[method] ?? FALLBACK_COLORS[Math.max(0, all.indexOf(method)) % FALLBACK_COLORS.length];
}

/** A round step for an axis spanning `span` with about `count` ticks. */
function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
}

function legend(methods: string[], x: number, y: number): string {
  let at = x;
  return methods
    .map((m) => {
      const out = `<rect x="${at}" y="${y - 9}" width="10" height="10" rx="2" fill="${colorOf(m, methods)}"/><text x="${at + 14}" y="${y}" class="lbl">${esc(m)}</text>`;
      at += 24 + m.length * 6.4;
      return out;
    })
    .join('');
}

const MAX_ROWS = 40;

/**
 * One row per send (per method looked at): a bar from the send to visibility at "pending", the
 * seal marked with a diamond; vertical lines at each flashblock tick (200 ms) and at the block time.
 */

/**
 * The charts' rules, for the page's one stylesheet: a <style> inside an SVG would be a second
 * stylesheet, which the page's Content-Security-Policy (one style, allowed by hash) refuses.
 */
export const CHART_STYLE = [
  '.lbl{font:11px system-ui,sans-serif;fill:#57606a}',
  '.miss{fill:#cf222e}',
  '.tick{stroke:#d0d7de;stroke-dasharray:2 3}',
  '.axis{stroke:#8c959f}',
  '.block{stroke:#1b1f24;stroke-width:1.5}',
  '.seal{fill:#1b1f24}',
  '.grid{stroke:#eaeef2}',
  '.spec{stroke:#1a7f37;stroke-dasharray:5 3}',
  '.spect{fill:#1a7f37}',
  '.bound{stroke:#cf222e;stroke-dasharray:2 3}',
  '.boundt{fill:#cf222e}',
]
  .map((rule) => `svg.chart ${rule}`)
  .join('');

export function timelineSvg(t: Timeline): string {
  const flashblockMs = t.flashblockMs ?? SPEC_REFRESH_MS;
  const sends = t.sends.slice(0, MAX_ROWS);
  const methods = [...new Set(sends.map((s) => s.method))];
  // A time the pass did not observe is absent from the timeline.
  const rel = (v: number | undefined, s: { sentAtMs: number }) => (v === undefined ? undefined : Math.max(0, v - s.sentAtMs));
  const ends = sends.flatMap((s) => [rel(s.visibleAtMs, s), rel(s.sealedAtMs, s)]).filter((v): v is number => v !== undefined);
  const span = Math.max(flashblockMs * 2, maxOf(ends), t.blockTimeMs ?? 0) * 1.04;
  const left = 240;
  const width = 900;
  const plot = width - left - 20;
  const rowH = 14;
  const top = 48;
  const height = top + sends.length * rowH + 34;
  const x = (ms: number) => left + (ms / span) * plot;
  const parts: string[] = [];
  // Flashblock ticks; labelled sparsely so the labels never overlap.
  const labelEvery = Math.max(1, Math.ceil(niceStep(span, 8) / flashblockMs));
  for (let k = 0, ms = 0; ms <= span && k < 200; k++, ms += flashblockMs) {
    parts.push(`<line x1="${x(ms).toFixed(1)}" y1="${top - 4}" x2="${x(ms).toFixed(1)}" y2="${height - 28}" class="${k === 0 ? 'axis' : 'tick'}"/>`);
    if (k % labelEvery === 0) parts.push(`<text x="${x(ms).toFixed(1)}" y="${height - 14}" class="lbl" text-anchor="middle">${ms} ms</text>`);
  }
  // One block time after the send: the latest a transaction accepted at once can be sealed.
  if (t.blockTimeMs)
    parts.push(
      `<line x1="${x(t.blockTimeMs).toFixed(1)}" y1="${top - 4}" x2="${x(t.blockTimeMs).toFixed(1)}" y2="${height - 28}" class="block"/><text x="${(x(t.blockTimeMs) - 4).toFixed(1)}" y="${height - 2}" class="lbl" text-anchor="end">one block time (${t.blockTimeMs} ms) after the send</text>`,
    );
  sends.forEach((s, i) => {
    const y = top + i * rowH;
    const visible = rel(s.visibleAtMs, s);
    const sealed = rel(s.sealedAtMs, s);
    const color = colorOf(s.method, methods);
    parts.push(`<text x="${left - 8}" y="${y + 10}" class="lbl" text-anchor="end">#${i + 1} ${esc(s.method)}</text>`);
    if (visible !== undefined) {
      parts.push(
        `<rect x="${x(0).toFixed(1)}" y="${y + 2}" width="${Math.max(2, x(visible) - x(0)).toFixed(1)}" height="${rowH - 5}" rx="2" fill="${color}"><title>${esc(`${s.method}: visible at "pending" ${Math.round(visible)} ms after the send${sealed !== undefined ? `; sealed at ${Math.round(sealed)} ms` : ''}`)}</title></rect>`,
      );
    } else {
      parts.push(`<text x="${x(0) + 4}" y="${y + 10}" class="lbl miss">not seen at "pending" before the seal</text>`);
    }
    if (sealed !== undefined) {
      const cx = x(sealed);
      parts.push(
        `<path d="M${cx.toFixed(1)} ${y + 1} l5 5.5 l-5 5.5 l-5 -5.5 z" class="seal"><title>${esc(`sealed ${Math.round(sealed)} ms after the send`)}</title></path>`,
      );
    }
  });
  const more = t.sends.length > MAX_ROWS ? `<text x="${left}" y="${height - 2}" class="lbl">… ${t.sends.length - MAX_ROWS} more sends not drawn</text>` : '';
  return `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="pre-confirmation timeline">
${legend(methods, left, 14)}<path d="M${left + 5} 24 l5 5.5 l-5 5.5 l-5 -5.5 z" class="seal"/><text x="${left + 14}" y="34" class="lbl">seal · dotted lines: the ${flashblockMs} ms flashblock ticks</text>
${parts.join('\n')}${more}
</svg>`;
}

/**
 * Per method: the timeline's samples as dots over a bar from p50 to p95 (as the check recorded
 * them), a thin line from the lowest sample (or p50) to the max; the spec's "about 200 ms" and
 * the judged bounds as vertical lines.
 */
export function latencySvg(d: LatencyDistribution): string {
  const methods = d.byMethod.map((m) => m.method);
  const rows = d.byMethod;
  const maxMs = Math.max(d.specRefreshMs * 1.2, maxOf(rows.map((r) => r.stats.max)), d.boundsMs?.p95 ?? 0) * 1.06;
  const left = 240;
  const width = 900;
  // Room on the right for each row's "p50 · p95 · max" label.
  const plot = width - left - 190;
  const rowH = 34;
  // Room above the rows for the three vertical lines' labels, so none lands on a row's label.
  const top = 52;
  const height = top + rows.length * rowH + 34;
  const x = (ms: number) => left + (Math.min(ms, maxMs) / maxMs) * plot;
  const parts: string[] = [];
  const step = niceStep(maxMs, 8);
  for (let ms = 0; ms <= maxMs; ms += step) {
    parts.push(
      `<line x1="${x(ms).toFixed(1)}" y1="${top}" x2="${x(ms).toFixed(1)}" y2="${height - 28}" class="${ms === 0 ? 'axis' : 'grid'}"/><text x="${x(ms).toFixed(1)}" y="${height - 14}" class="lbl" text-anchor="middle">${Math.round(ms)} ms</text>`,
    );
  }
  // A label near the right edge goes on the left of its line.
  const vline = (ms: number, cls: string, label: string, dy: number) => {
    const flip = x(ms) > width - 140;
    return `<line x1="${x(ms).toFixed(1)}" y1="${top - 30 + dy - 10}" x2="${x(ms).toFixed(1)}" y2="${height - 28}" class="${cls}"/><text x="${(x(ms) + (flip ? -4 : 4)).toFixed(1)}" y="${top + dy - 30}" class="lbl ${cls}t"${flip ? ' text-anchor="end"' : ''}>${esc(label)}</text>`;
  };
  parts.push(vline(d.specRefreshMs, 'spec', `spec: about ${d.specRefreshMs} ms`, 4));
  if (d.boundsMs?.p50 !== undefined) parts.push(vline(d.boundsMs.p50, 'bound', `p50 bound ${d.boundsMs.p50} ms`, 16));
  if (d.boundsMs?.p95 !== undefined) parts.push(vline(d.boundsMs.p95, 'bound', `p95 bound ${d.boundsMs.p95} ms`, 28));
  rows.forEach((r, i) => {
    const y = top + i * rowH + 8;
    const color = colorOf(r.method, methods);
    const s = r.stats;
    const low = Math.min(s.p50, minOf(r.samples));
    parts.push(`<text x="${left - 8}" y="${y + 12}" class="lbl" text-anchor="end">${esc(r.method)} (n=${s.n})</text>`);
    parts.push(`<line x1="${x(low).toFixed(1)}" y1="${y + 8}" x2="${x(s.max).toFixed(1)}" y2="${y + 8}" stroke="${color}" stroke-width="1.5"/>`);
    parts.push(
      `<rect x="${x(s.p50).toFixed(1)}" y="${y}" width="${Math.max(2, x(s.p95) - x(s.p50)).toFixed(1)}" height="16" rx="2" fill="${color}" fill-opacity=".35" stroke="${color}"><title>${esc(`${r.method}: p50 ${s.p50} ms, p95 ${s.p95} ms, max ${s.max} ms over ${s.n}`)}</title></rect>`,
    );
    parts.push(`<line x1="${x(s.p50).toFixed(1)}" y1="${y - 2}" x2="${x(s.p50).toFixed(1)}" y2="${y + 18}" stroke="${color}" stroke-width="2.5"/>`);
    r.samples.forEach((v, k) => parts.push(`<circle cx="${x(v).toFixed(1)}" cy="${(y + 3 + ((k * 7) % 11)).toFixed(1)}" r="2.3" fill="${color}"/>`));
    parts.push(`<text x="${(x(s.max) + 6).toFixed(1)}" y="${y + 12}" class="lbl">p50 ${s.p50} · p95 ${s.p95} · max ${s.max}</text>`);
  });
  return `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="pre-confirmation latency distribution">
${parts.join('\n')}
</svg>`;
}
