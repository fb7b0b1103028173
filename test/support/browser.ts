import type { Browser } from "playwright-core";
import { inject } from "vitest";
import { launchChromium } from "./chromium.js";

const BROWSER_CLOSE_MS = 15_000;

/** The Chromium that global setup found running (Debian's or the one npm installed), headless. */
export async function launchBrowser(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const path = inject("chromiumPath");
  if (path === null) throw new Error("no Chromium runs here (global setup said why)");
  const browser = await launchChromium(path);
  // Bounded: on a loaded machine a browser can be slow to quit, and a suite's teardown closes its
  // server only after the browser; the process goes with the test worker in any case.
  const close = () =>
    Promise.race([browser.close(), new Promise<void>((resolve) => setTimeout(resolve, BROWSER_CLOSE_MS).unref())]);
  return { browser, close };
}
