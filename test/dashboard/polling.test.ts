import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { UserRow } from "../../src/modules/identity/identity.repository.js";
import { startMarket } from "../../src/modules/market/quotes.js";
import { PASSWORD, passwordUser } from "../oauth/support.js";
import { launchBrowser } from "../support/browser.js";
import { type Harness, startHarness } from "../support/harness.js";

const suites = inject("services").chromium ? ["chromium"] : [];
const BTC = 100000;

// CORS_ORIGINS without the page's own origin: the WebSocket upgrade (which checks Origin) is
// refused, as behind a proxy that drops WebSockets; the page must fall back to polling REST.
describe.each(suites)("the dashboard without its WebSocket, in %s", () => {
  let h: Harness;
  let base: string;
  let user: UserRow;
  let page: Page;
  let closeBrowser: () => Promise<void>;
  const problems: string[] = [];

  beforeAll(async () => {
    execFileSync(process.execPath, ["scripts/build-dashboard.mjs"], { stdio: "inherit" });
    h = await startHarness("sqlite", {
      env: { MARKET_TICK_MS: "250", MARKET_VOLATILITY: "0.002", CORS_ORIGINS: "https://elsewhere.example" },
    });
    await startMarket(h.deps);
    user = await passwordUser(h);
    const { headers } = await h.bearer(["watchlist:write"], { user });
    const created = await h.app.inject({
      method: "POST",
      url: "/api/v1/watchlists?name=Polling",
      headers: { ...headers, "x-request-id": randomUUID() },
    });
    const id = (created.json() as { watchlists: { watchlistId: string }[] }).watchlists[0]!.watchlistId;
    await h.app.inject({
      method: "POST",
      url: `/api/v1/watchlists/${id}/items`,
      headers: { ...headers, "x-request-id": randomUUID(), "content-type": "application/json" },
      payload: [{ itemId: BTC, itemType: "Instrument" }],
    });
    base = await h.app.listen({ port: 0, host: "127.0.0.1" });
    const launched = await launchBrowser();
    closeBrowser = launched.close;
    page = await launched.browser.newPage();
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  });

  // A browser and a server to close on a machine the other suites keep busy: more than a hook's usual minute.
  afterAll(async () => {
    await closeBrowser?.();
    await h?.close();
  }, 180_000);

  it("says it is reconnecting, and still shows prices moving by polling the rates", async () => {
    await page.goto(`${base}/dashboard`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByLabel("Username").fill(user.username);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL(`${base}/dashboard`);
    await expect
      .poll(() => page.locator(".channel").getAttribute("data-state"), { timeout: 15_000 })
      .toBe("reconnecting");
    const bid = () => page.getByTestId(`quote-${BTC}`).locator('[data-field="bid"]').textContent();
    await expect.poll(bid, { timeout: 15_000 }).toMatch(/\d/);
    const first = await bid();
    await expect.poll(bid, { timeout: 15_000 }).not.toBe(first);
    // the only errors: the browser's own report of each refused WebSocket upgrade
    expect(problems.filter((p) => !/WebSocket connection to '.*\/ws' failed/.test(p))).toEqual([]);
    expect(problems.length).toBeGreaterThan(0);
  });
});
