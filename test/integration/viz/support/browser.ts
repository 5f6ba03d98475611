import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Debian's chromium, as the tests drive it: no sandbox (root in CI), no GPU, no network chatter. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const chromiumInstalled = () => existsSync(CHROMIUM);

/**
 * In CI a missing browser is a failure with instructions, never a skip; on a workstation without
 * it the browser tests are skipped with the same instructions in their name.
 */
export const mustRunBrowserTests = () => chromiumInstalled() || process.env.CI === 'true' || process.env.CI === '1';

export async function launchChromium(): Promise<Browser> {
  if (!chromiumInstalled()) {
    throw new Error(`${CHROMIUM} is missing: the view's browser tests need Debian's chromium. Install it with scripts/setup-browser.sh (apt-get install chromium).`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
