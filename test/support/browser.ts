// Headless Chromium for the report's browser test and `npm run screenshot`: the system's own
// browser (Debian's `chromium` package, or CHROMIUM_PATH), driven by playwright-core, which
// downloads no browser of its own.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser's executable, or undefined when none is installed. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.CHROMIUM_PATH) return existsSync(env.CHROMIUM_PATH) ? env.CHROMIUM_PATH : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}

export const NO_CHROMIUM = `no Chromium found (${CANDIDATES.join(', ')}; or set CHROMIUM_PATH): apt-get install chromium`;

export function launchChromium(executablePath: string): Promise<Browser> {
  // --no-sandbox: CI containers run as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'], timeout: 30_000 });
}
