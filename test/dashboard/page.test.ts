import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemActor } from "../../src/core/actor.js";
import { withActor } from "../../src/modules/context.js";
import { DASHBOARD_CLIENT_NAME } from "../../src/modules/dashboard/ensure-client.js";
import { listClients } from "../../src/modules/oauth/clients.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

const configOf = (html: string) =>
  JSON.parse(
    /name="dashboard-config" content="([^"]+)"/.exec(html)![1]!.replaceAll("&quot;", '"').replaceAll("&amp;", "&"),
  ) as {
    clientId: string;
    redirectUri: string;
    scope: string;
    scopePrefix: string;
    sandbox: boolean;
  };

const dashboardClients = async (h: Harness) =>
  (await listClients(withActor(h.deps, systemActor("test")))).filter((c) => c.name === DASHBOARD_CLIENT_NAME);

beforeAll(() => {
  execFileSync(process.execPath, ["scripts/build-dashboard.mjs"], { stdio: "inherit" });
});

describe.each(engines())("the dashboard page on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(async () => h.close());

  it("registers one public OAuth client for itself, on loopback addresses any port matches", async () => {
    const first = await h.app.inject({ method: "GET", url: "/dashboard" });
    expect(first.statusCode).toBe(200);
    const config = configOf(first.body);
    expect(config.redirectUri).toBe(`http://127.0.0.1:${h.config.port}/dashboard`);
    expect(config.scope.split(" ")).toEqual([
      "service-public:user-info:read",
      "service-public:watchlist:read",
      "service-public:trade.demo:read",
      "service-public:trade.demo:write",
      "service-public:feed:read",
      "service-public:feed:write",
      "service-public:notifications:read",
      "service-public:notifications:write",
    ]);
    const clients = await dashboardClients(h);
    expect(clients).toHaveLength(1);
    expect(clients[0]).toMatchObject({
      clientId: config.clientId,
      type: "public",
      redirectUris: ["http://127.0.0.1/dashboard", "http://[::1]/dashboard"],
    });
    // a second page load reuses it
    const again = await h.app.inject({ method: "GET", url: "/dashboard" });
    expect(configOf(again.body).clientId).toBe(config.clientId);
    expect(await dashboardClients(h)).toHaveLength(1);
  });

  it("answers its assets with their types, cache rules and the page's CSP", async () => {
    const page = await h.app.inject({ method: "GET", url: "/dashboard" });
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toContain("connect-src 'self'");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    const css = await h.app.inject({ method: "GET", url: "/dashboard/app.css" });
    expect(css.statusCode).toBe(200);
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect(css.body).toContain(".positions");
    const js = await h.app.inject({ method: "GET", url: "/dashboard/app.js" });
    expect(js.statusCode).toBe(200);
    expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    // bundled: no import of a package left for the browser to resolve, no CDN
    expect(js.body).not.toMatch(/from\s*["'](preact|lightweight-charts)/);
    expect(js.body).not.toMatch(/https?:\/\/(cdn|unpkg|esm\.sh)/);
  });
});

describe("the dashboard behind PUBLIC_URL", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("sqlite", { env: { PUBLIC_URL: "https://trading.example" } });
  });
  afterAll(async () => h.close());

  it("comes back to PUBLIC_URL's /dashboard, the one address its client lists", async () => {
    const page = await h.app.inject({ method: "GET", url: "/dashboard" });
    const config = configOf(page.body);
    expect(config.redirectUri).toBe("https://trading.example/dashboard");
    const clients = await dashboardClients(h);
    expect(clients.map((c) => c.redirectUris)).toEqual([["https://trading.example/dashboard"]]);
    // the authorization server accepts the request the page's sign-in button makes
    const authorize = await h.app.inject({
      method: "GET",
      url: `/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: config.clientId,
        redirect_uri: config.redirectUri,
        scope: config.scope,
        state: "s",
        code_challenge: "a".repeat(43),
        code_challenge_method: "S256",
      }).toString()}`,
    });
    expect(authorize.statusCode).toBe(200);
    expect(authorize.body).toContain("Dashboard");
  });
});
