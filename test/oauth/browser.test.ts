import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser } from "../support/browser.js";
import { type Harness, startHarness } from "../support/harness.js";
import { client, PASSWORD, passwordUser } from "./support.js";

// Only where a browser exists; under CI=true a missing browser fails the run (global setup).
const suites = inject("services").chromium ? ["chromium"] : [];
const insecure = { [oauth.allowInsecureRequests]: true };

describe.each(suites)("the OAuth login and consent pages in %s, driven with a real OAuth client", () => {
  let h: Harness;
  let base: string;
  let callback: Server;
  let callbackPort: number;
  beforeAll(async () => {
    h = await startHarness("sqlite");
    base = await h.app.listen({ port: 0, host: "127.0.0.1" });
    // the "app": a loopback redirect target on a port of its own (RFC 8252: any port on loopback)
    callback = createServer((_req, res) => {
      res.setHeader("content-type", "text/html");
      res.end("<!doctype html><title>Back in the app</title><p>Signed in.</p>");
    });
    await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
    callbackPort = (callback.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await h.close();
    await new Promise((resolve) => callback.close(resolve));
  });

  it("a user signs in and allows with the keyboard; oauth4webapi gets tokens that call the API, refresh and revoke", async () => {
    const user = await passwordUser(h);
    const app = await client(h, { isPublic: true, name: "Pocket Trader", redirectUris: ["http://127.0.0.1/callback"] });
    const redirectUri = `http://127.0.0.1:${callbackPort}/callback`;

    const issuer = new URL(base);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
    );
    const c: oauth.Client = { client_id: app.clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id: app.clientId,
      redirect_uri: redirectUri,
      scope: "service-public:user-info:read service-public:notifications:read",
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    })) {
      authorizationUrl.searchParams.set(k, v);
    }

    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      const failedLoads: string[] = [];
      page.on("requestfailed", (r) => failedLoads.push(r.url()));
      const external: string[] = [];
      page.on("request", (r) => {
        if (!r.url().startsWith(base) && !r.url().startsWith(`http://127.0.0.1:${callbackPort}`))
          external.push(r.url());
      });
      await page.goto(authorizationUrl.toString());
      expect(await page.title()).toBe("Sign in");
      expect(await page.locator("main").textContent()).toContain("Pocket Trader");

      // keyboard only: the username field has focus, Tab to the password, Enter submits
      expect(await page.evaluate("document.activeElement && document.activeElement.id")).toBe("username");
      await page.keyboard.type(user.username);
      await page.keyboard.press("Tab");
      await page.keyboard.type("wrong password");
      await page.keyboard.press("Enter");
      await page.waitForLoadState();
      expect(await page.getByRole("alert").textContent()).toContain("Wrong username or password");
      await page.getByLabel("Password").focus();
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press("Enter");

      await page.getByRole("heading", { name: /Allow Pocket Trader/ }).waitFor();
      const consent = (await page.locator("main").textContent()) ?? "";
      expect(consent).toContain(user.username);
      expect(consent).toContain("See your profile: name, username and account numbers");
      expect(consent).toContain("Read your notifications");
      mkdirSync("test-artifacts", { recursive: true });
      await page.screenshot({ path: "test-artifacts/oauth-consent.png", fullPage: true });

      // Allow has the focus; Enter activates it
      expect(await page.evaluate("document.activeElement && document.activeElement.value")).toBe("allow");
      await Promise.all([
        page.waitForURL(`http://127.0.0.1:${callbackPort}/callback?**`),
        page.keyboard.press("Enter"),
      ]);
      expect(external).toEqual([]);
      expect(failedLoads).toEqual([]);

      const params = oauth.validateAuthResponse(as, c, new URL(page.url()), state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        c,
        oauth.None(),
        params,
        redirectUri,
        verifier,
        insecure,
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, c, response);
      expect(tokens.token_type).toBe("bearer");
      expect(tokens.scope).toBe("service-public:user-info:read service-public:notifications:read");

      const me = await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { username: string }).username).toBe(user.username);

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        c,
        await oauth.refreshTokenGrantRequest(as, c, oauth.None(), tokens.refresh_token!, insecure),
      );
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      // the spent refresh token is refused as invalid_grant, and the family is revoked
      await expect(
        oauth.processRefreshTokenResponse(
          as,
          c,
          await oauth.refreshTokenGrantRequest(as, c, oauth.None(), tokens.refresh_token!, insecure),
        ),
      ).rejects.toMatchObject({ error: "invalid_grant" });
      const after = await fetch(`${base}/api/v1/me`, {
        headers: { authorization: `Bearer ${refreshed.access_token}` },
      });
      expect(after.status).toBe(401);
      expect(after.headers.get("www-authenticate")).toBe('Bearer error="invalid_token", error_description="revoked"');
    } finally {
      await close();
    }
  });

  it("a new grant can be revoked by the client through oauth4webapi", async () => {
    const user = await passwordUser(h);
    const app = await client(h, { isPublic: false, name: "Server App", redirectUris: ["http://127.0.0.1/cb"] });
    const redirectUri = `http://127.0.0.1:${callbackPort}/cb`;
    const issuer = new URL(base);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
    );
    const c: oauth.Client = { client_id: app.clientId };
    const auth = oauth.ClientSecretBasic(app.clientSecret!);
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: app.clientId,
      redirect_uri: redirectUri,
      scope: "user-info:read",
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    }).toString();
    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(url.toString());
      await page.getByLabel("Username").fill(user.username);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await Promise.all([page.waitForURL(`${redirectUri}?**`), page.getByRole("button", { name: "Allow" }).click()]);
      const params = oauth.validateAuthResponse(as, c, new URL(page.url()), oauth.expectNoState);
      const tokens = await oauth.processAuthorizationCodeResponse(
        as,
        c,
        await oauth.authorizationCodeGrantRequest(as, c, auth, params, redirectUri, verifier, insecure),
      );
      expect(
        (await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status,
      ).toBe(200);
      await oauth.processRevocationResponse(
        await oauth.revocationRequest(as, c, auth, tokens.refresh_token!, insecure),
      );
      expect(
        (await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status,
      ).toBe(401);
    } finally {
      await close();
    }
  });
});
