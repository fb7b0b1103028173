import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser } from "../support/browser.js";
import { type Harness, startHarness } from "../support/harness.js";

// Only where a browser exists; under CI=true a missing browser fails the run (global setup).
const suites = inject("services").chromium ? ["chromium"] : [];

describe.each(suites)("the /docs page in %s", () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness("sqlite");
    base = await h.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => h.close());

  it("lets a user authorize with a key pair and try GET /api/v1/me", { timeout: 90_000 }, async () => {
    const u = await h.user(["notifications:read"], { username: "docs_reader" });
    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${base}/docs`);
      // Swagger UI lays out the whole 1.2 MB document first: up to 25 s on a busy two-core machine
      await page.locator(".opblock").first().waitFor({ timeout: 60_000 });
      expect(await page.locator(".info .title").textContent()).toContain("Social Trading");

      await page.locator("button.authorize").first().click();
      for (const [scheme, value] of [
        ["apiKey", u.headers["x-api-key"]!],
        ["userKey", u.headers["x-user-key"]!],
      ] as const) {
        const form = page.locator("form", { hasText: `${scheme} (apiKey)` });
        await form.locator("input").fill(value);
        await form.locator("button.authorize").click();
      }
      await page.locator("button.btn-done").first().click();

      const op = page.locator("#operations-Identity-getAuthenticatedUserProfile");
      await op.locator(".opblock-summary").click();
      await op.locator("button.try-out__btn").click();
      await op.locator("button.execute").click();
      const status = op.locator(".live-responses-table .response .response-col_status").first();
      await status.waitFor();
      expect((await status.textContent())?.trim()).toBe("200");
      expect(await op.locator(".live-responses-table .microlight").first().textContent()).toContain("docs_reader");

      mkdirSync("test-artifacts", { recursive: true });
      await page.screenshot({ path: "test-artifacts/docs-try-it.png", fullPage: false });
    } finally {
      await close();
    }
  });
});
