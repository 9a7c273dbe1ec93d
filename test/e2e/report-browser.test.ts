// report.html as a person uses it, in a real headless Chromium: reports of real runs (the
// reference target, and a faulty variant of it behind test/faults/proxy.ts) served on loopback;
// the status banner, the filter buttons and the search (visible rows counted against
// results.json), every check id as a working anchor, no request but the page itself, and no
// console error (a Content-Security-Policy violation included).
// Without Chromium the tests are skipped with the reason; under CI=true that is a failure
// (.ci/run installs the browser).
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { main } from '../../src/cli/main';
import { startReference, type ReferenceTarget } from '../../src/reference';
import { VARIANTS } from '../faults/catalogue';
import { startProxy, type Proxy } from '../faults/proxy';
import { findChromium, launchChromium, NO_CHROMIUM } from '../support/browser';
import { sink } from '../support/sink';

interface Check {
  id: string;
  status: string;
  level: string;
  expectation?: { outcome: string };
}
interface Report {
  dir: string;
  doc: { status: string; counts: { passed: number; skipped: number }; checks: Check[] };
}

const executable = findChromium();
const CI = process.env.CI === 'true';

/** One run of the CLI, in process, writing its reports to a fresh directory. */
async function report(args: string[]): Promise<Report> {
  const dir = mkdtempSync(path.join(tmpdir(), 'report-browser-'));
  const out = sink();
  const code = await main([...args, '--report-dir', dir, '--timeout-ms', '3000'], {}, { out: out.stream, err: out.stream });
  if (![0, 1].includes(code)) throw new Error(`run exited ${code}\n${out.text()}`);
  return { dir, doc: JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8')) };
}

/** Serves one report directory's report.html on loopback; records every path asked for. */
async function serve(dir: string): Promise<{ url: string; asked: string[]; close: () => Promise<void> }> {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    asked.push(req.url ?? '');
    if (req.url !== '/report.html') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readFileSync(path.join(dir, 'report.html')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/report.html`, asked, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A page that records what it requests beyond its own URL (and blocks it) and every console error. */
async function open(browser: Browser, url: string): Promise<{ page: Page; external: string[]; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  const external: string[] = [];
  const errors: string[] = [];
  const own = url.split('#')[0];
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u === own) return route.continue();
    external.push(u);
    return route.abort();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
  return { page, external, errors };
}

/**
 * In the page (a string: the project compiles without DOM types): follow #check-<id>, and say
 * what is wrong when that row is not the target, not rendered, or not scrolled into view.
 */
const SHOW_CHECK = `async (id) => {
  location.hash = '#check-' + id;
  await new Promise((r) => requestAnimationFrame(r));
  const t = document.querySelector(':target');
  const box = t && t.getBoundingClientRect();
  if (t && t.id === 'check-' + id && box.height > 0 && box.top > -2 && box.top < innerHeight) return '';
  return 'target ' + (t && t.id) + ', box ' + JSON.stringify(box);
}`;

/** Rows a person sees: neither the row nor anything around it hidden by the filter. */
const visibleIds = (page: Page) => page.$$eval('[data-outcome]', (rows) => rows.filter((r) => !r.closest('[hidden]')).map((r) => r.getAttribute('data-id')!));

const failsRun = (c: Check) =>
  c.expectation?.outcome === 'unexpected-pass' || (c.status === 'failed' && c.level === 'required' && c.expectation?.outcome !== 'expected-failure');

if (!executable) {
  if (CI) {
    it('Chromium is installed (CI=true)', () => {
      throw new Error(`CI=true and ${NO_CHROMIUM} (.ci/run installs it)`);
    });
  } else {
    console.warn(`report.html in a browser: skipped, ${NO_CHROMIUM}`);
    it.skip(`report.html in a browser: ${NO_CHROMIUM}`, () => undefined);
  }
} else {
  describe('report.html in headless Chromium', () => {
    let ref: ReferenceTarget;
    let proxy: Proxy;
    let browser: Browser;
    let conformant: Report;
    let faulty: Report;

    beforeAll(async () => {
      ref = await startReference({ profile: 'dedicated', blockTimeMs: 1000 });
      const v = VARIANTS.find((x) => x.name === 'rest.list-failure-plain-text')!;
      proxy = await startProxy({ restUpstream: ref.baseUrl, rpcUpstream: ref.rpcUrl, rest: v.rest });
      [conformant, faulty, browser] = await Promise.all([
        // Every group and a signer: the pre-confirmation charts are on the page too.
        report(['--base-url', ref.baseUrl, '--rpc-url', ref.rpcUrl, '--signer-key', ref.signerKey]),
        report(['--base-url', proxy.restUrl, '--rpc-url', proxy.rpcUrl, '--only', 'rest']),
        launchChromium(executable),
      ]);
      expect([conformant.doc.status, faulty.doc.status]).toEqual(['conformant', 'non-conformant']);
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await proxy?.stop();
      await ref?.stop();
    });

    it.each([
      ['conformant', () => conformant],
      ['non-conformant', () => faulty],
    ])(
      'the %s page: its status in the banner, every check id a working anchor, no request but itself, no console error',
      async (status, which) => {
        const { dir, doc } = which();
        const site = await serve(dir);
        const { page, external, errors } = await open(browser, site.url);
        try {
          expect(await page.textContent('h1 .pill')).toBe(status);
          expect(await page.textContent('.status .line')).toMatch(new RegExp(`^${status}\\b`));
          if (status === 'conformant') expect(await page.locator('svg.chart').count()).toBe(2);
          // Every in-page link leads somewhere.
          const broken = await page.evaluate(
            `[...document.querySelectorAll('a[href^="#"]')].map((a) => a.getAttribute('href')).filter((h) => !document.getElementById(decodeURIComponent(h.slice(1))))`,
          );
          expect(broken).toEqual([]);
          // #check-<id> targets that row and scrolls it to the top (within a pixel's rounding), folded passed checks included.
          const misses: string[] = [];
          for (const { id } of doc.checks) {
            const seen = await page.evaluate(`(${SHOW_CHECK})(${JSON.stringify(id)})`);
            if (seen) misses.push(`${id}: ${seen}`);
          }
          expect(misses).toEqual([]);
          expect(external).toEqual([]);
          expect(errors).toEqual([]);
          expect(site.asked).toEqual(['/report.html']);
        } finally {
          await page.close();
          await site.close();
        }
      },
      60_000,
    );

    it('the filter buttons and the search show exactly the rows they name', async () => {
      const { dir, doc } = faulty;
      const site = await serve(dir);
      const { page, errors } = await open(browser, site.url);
      const ids = (f: (c: Check) => boolean) =>
        doc.checks
          .filter(f)
          .map((c) => c.id)
          .sort();
      try {
        const failing = ids(failsRun);
        expect(failing.length).toBeGreaterThan(0);
        expect((await visibleIds(page)).length).toBe(doc.checks.length);
        await page.click('button[data-filter="failing"]');
        expect((await visibleIds(page)).sort()).toEqual(failing);
        await page.click('button[data-filter="passed"]');
        expect((await visibleIds(page)).sort()).toEqual(ids((c) => c.status === 'passed' && !c.expectation));
        await page.click('button[data-filter="skipped"]');
        expect((await visibleIds(page)).length).toBe(doc.counts.skipped);
        // The search narrows the current filter by id.
        await page.click('button[data-filter="all"]');
        await page.fill('#search', 'rest.error.');
        const search = ids((c) => c.id.includes('rest.error.'));
        expect(search.length).toBeGreaterThan(0);
        expect(search.length).toBeLessThan(doc.checks.length);
        expect((await visibleIds(page)).sort()).toEqual(search);
        await page.click('button[data-filter="passed"]');
        expect((await visibleIds(page)).sort()).toEqual(ids((c) => c.id.includes('rest.error.') && c.status === 'passed' && !c.expectation));
        await page.fill('#search', '');
        await page.click('button[data-filter="all"]');
        expect((await visibleIds(page)).length).toBe(doc.checks.length);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
      // A link can carry the view: report.html#filter=failing opens on the failing checks.
      const linked = await open(browser, `${site.url}#filter=failing`);
      try {
        expect((await visibleIds(linked.page)).sort()).toEqual(ids(failsRun));
        expect(linked.errors).toEqual([]);
      } finally {
        await linked.page.close();
        await site.close();
      }
    }, 60_000);
  });
}
