import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireUser } from "../../src/core/access.js";
import { ERROR_STATUS } from "../../src/core/errors.js";
import { type AcceptedScopes, ANY_AUTHENTICATED } from "../../src/core/scopes.js";
import { registerAuth, registerScopeCheck } from "../../src/http/auth.js";
import { registerErrorHandling } from "../../src/http/errors.js";
import { type Harness, rid, startHarness } from "../support/harness.js";

/** The HTTP layer's guard alone (error handling, auth, scope check), on routes made for the test. */
function guardedApp() {
  const app = Fastify();
  registerErrorHandling(app, (code) => ERROR_STATUS[code], "acme");
  registerAuth(app, { keyPair: () => null });
  registerScopeCheck(app);
  return app;
}

describe("deny by default, when routes are declared", () => {
  it.each([
    [[], /GET \/none declares no usable access: an empty list of scopes admits nobody/],
    [["feed:read", "feed:delete"], /GET \/none declares no usable access: unknown scopes: feed:delete/],
    [{ description: "any authenticated user" }, /GET \/none declares no usable access/],
  ])("refuses a route that accepts %j: the server does not start", (scopes, message) => {
    const app = guardedApp();
    const access = { scopes: scopes as unknown as AcceptedScopes };
    expect(() => app.get("/none", { config: { access } }, async () => "open")).toThrow(message);
  });

  it("takes a route with scopes or with the explicit marker", async () => {
    const app = guardedApp();
    app.get("/some", { config: { access: { scopes: ["feed:read"] } } }, async () => "ok");
    app.get("/any", { config: { access: { scopes: ANY_AUTHENTICATED } } }, async () => "ok");
    await app.ready();
    expect((await app.inject({ method: "GET", url: "/any" })).statusCode).toBe(401);
    await app.close();
  });
});

describe("403 InsufficientPermissions names the accepted scopes with the configured prefix", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("sqlite", { env: { SCOPE_PREFIX: "acme" } });
  });
  afterAll(async () => h.close());

  it("from the route's scope check", async () => {
    const u = await h.user(["acme:feed:read"]);
    const res = await h.app.inject({
      method: "GET",
      url: "/api/v1/trading/info/demo/portfolio",
      headers: { ...u.headers, "x-request-id": rid() },
    });
    expect(res.statusCode).toBe(403);
    const accepted = ["trade.demo:read", "demo:read", "trade.demo:write", "demo:write"].map((s) => `acme:${s}`);
    expect(res.json()).toEqual({
      errorCode: "InsufficientPermissions",
      errorMessage: `This operation accepts any one of these scopes, and the credential holds none: ${accepted.join(", ")}`,
      requestId: res.headers["x-request-id"],
      details: accepted.map((scope) => ({ field: "scopes", message: scope })),
    });
  });

  it("from a use case's own check, rendered by the same error handler", async () => {
    const app = guardedApp();
    app.get("/use-case", async () =>
      requireUser({ ...(await h.user(["feed:read"])).actor }, ["notifications:read", "notifications:write"]),
    );
    const res = await app.inject({ method: "GET", url: "/use-case" });
    expect(res.statusCode).toBe(403);
    expect(res.json().details).toEqual([
      { field: "scopes", message: "acme:notifications:read" },
      { field: "scopes", message: "acme:notifications:write" },
    ]);
    await app.close();
  });
});
