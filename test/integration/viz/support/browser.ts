import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM } from '../../../support/real-components.js';

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

/** Whether chromium is there is decided by chromiumProblem() in test/support/real-components.ts. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
