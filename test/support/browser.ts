import type { Browser } from "playwright-core";
import { inject } from "vitest";
import { launchChromium } from "./chromium.js";

/** The Chromium that global setup found running (Debian's or the one npm installed), headless. */
export async function launchBrowser(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const path = inject("chromiumPath");
  if (path === null) throw new Error("no Chromium runs here (global setup said why)");
  const browser = await launchChromium(path);
  return { browser, close: () => browser.close() };
}
