import { type Browser, chromium } from "playwright-core";
import { CHROMIUM_PATH } from "./services.js";

/**
 * Debian's Chromium, headless, with no network chatter (the machine has no internet).
 * Playwright gives every launch a fresh, empty profile of its own.
 */
export async function launchBrowser(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return { browser, close: () => browser.close() };
}
