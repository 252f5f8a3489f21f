/**
 * Headless Chromium for tests that look at what a person sees (Debian's `chromium`
 * package, driven by playwright-core; `.ci/run` installs it). Flags as this machine needs
 * them: no sandbox as root, and no background networking (the network is closed).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.POLYEVAL_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`report browser tests need Chromium at ${CHROMIUM}: apt-get install chromium (or set POLYEVAL_CHROMIUM)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
