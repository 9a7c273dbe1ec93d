// `npm run screenshot`: docs/report.png, the top of report.html from a real full run against the
// embedded reference target, as headless Chromium renders it (1000×1250 CSS pixels). Needs anvil
// (the optional dependency) and a Chromium (test/support/browser.ts says where it looks).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { main } from '../src/cli/main';
import { findChromium, launchChromium, NO_CHROMIUM } from '../test/support/browser';

const OUT = path.resolve(__dirname, '..', 'docs', 'report.png');

async function screenshot(): Promise<number> {
  const executable = findChromium();
  if (!executable) {
    process.stderr.write(`screenshot: ${NO_CHROMIUM}\n`);
    return 2;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'screenshot-'));
  const code = await main(['--embedded', '--report-dir', dir], process.env, { out: process.stdout, err: process.stderr });
  if (code !== 0) {
    process.stderr.write(`screenshot: the run exited ${code}; no screenshot of a run that is not conformant\n`);
    return 1;
  }
  const browser = await launchChromium(executable);
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 1250 }, deviceScaleFactor: 1 });
    await page.goto(pathToFileURL(path.join(dir, 'report.html')).href, { waitUntil: 'load' });
    await page.screenshot({ path: OUT });
  } finally {
    await browser.close();
  }
  process.stdout.write(`screenshot: ${path.relative(process.cwd(), OUT)} from ${path.join(dir, 'report.html')}\n`);
  return 0;
}

screenshot().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`screenshot: ${String(err?.stack ?? err)}\n`);
    process.exit(1);
  },
);
