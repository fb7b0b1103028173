import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser } from "../support/browser.js";
import { type Harness, startHarness } from "../support/harness.js";
import { client, PASSWORD, passwordUser } from "./support.js";

// Only where a browser exists; under CI=true a missing browser fails the run (global setup).
const suites = inject("services").chromium ? ["chromium"] : [];

describe.each(suites)("/docs 'Authorize' with oauth2 in %s", () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness("sqlite");
    base = await h.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => h.close());

  it("runs the code flow with PKCE through the consent page and tries GET /api/v1/me with the token", async () => {
    const user = await passwordUser(h);
    // any port on loopback matches, so one registration serves every port the server runs on
    const app = await client(h, {
      isPublic: true,
      name: "API docs",
      redirectUris: ["http://127.0.0.1/docs/static/oauth2-redirect.html"],
    });
    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(30_000);
      await page.goto(`${base}/docs`);
      // Swagger UI lays out the whole 1.2 MB document first: up to 25 s on a busy two-core machine
      await page.locator(".opblock").first().waitFor({ timeout: 60_000 });
      await page.locator("button.authorize").first().click();
      const section = page.locator(".auth-container", { hasText: "authorizationCode" });
      await section.locator("#client_id_authorizationCode").fill(app.clientId);
      await section.getByText("service-public:user-info:read", { exact: true }).click();
      const [popup] = await Promise.all([page.waitForEvent("popup"), section.locator("button.authorize").click()]);
      await popup.getByLabel("Username").fill(user.username);
      await popup.getByLabel("Password").fill(PASSWORD);
      await popup.getByRole("button", { name: "Sign in" }).click();
      await popup.getByRole("heading", { name: /Allow API docs/ }).waitFor();
      await popup.getByRole("button", { name: "Allow" }).click();
      await page.locator(".modal-ux button", { hasText: "Logout" }).waitFor();
      expect(await section.textContent()).toContain("Authorized");
      await page.locator(".modal-ux button.close-modal").click();

      const op = page.locator("#operations-Identity-getAuthenticatedUserProfile");
      await op.locator(".opblock-summary").click();
      await op.locator("button.try-out__btn").click();
      await op.locator("button.execute").click();
      const status = op.locator(".live-responses-table .response .response-col_status").first();
      await status.waitFor();
      expect((await status.textContent())?.trim()).toBe("200");
      expect(await op.locator(".live-responses-table .microlight").first().textContent()).toContain(user.username);
      mkdirSync("test-artifacts", { recursive: true });
      await page.screenshot({ path: "test-artifacts/docs-oauth-try-it.png" });
    } finally {
      await close();
    }
  }, 120_000);
});
