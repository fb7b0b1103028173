import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { ERROR_STATUS } from "../../src/core/errors.js";
import { ANY_AUTHENTICATED } from "../../src/core/scopes.js";
import type { RateLimitGroup } from "../../src/http/access.js";
import { registerAuth } from "../../src/http/auth.js";
import { registerErrorHandling } from "../../src/http/errors.js";
import { registerRateLimit, trustProxyOption } from "../../src/http/rate-limit.js";
import { createKeyPairAuthenticator } from "../../src/modules/identity/authenticate.js";
import { type Harness, type Headers, startHarness } from "../support/harness.js";

/**
 * The limiter's plugins exactly as buildApp registers them (error handling, auth, limiter),
 * on one route per quota group, so the groups are checked whatever routes exist today.
 */
async function groupsApp(h: Harness, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const config = loadConfig(env);
  const app = Fastify({ trustProxy: trustProxyOption(config.trustProxy) });
  registerErrorHandling(app, (code) => ERROR_STATUS[code], config.scopePrefix);
  registerAuth(app, { keyPair: createKeyPairAuthenticator(h.deps) });
  registerRateLimit(app, config, h.deps.rateLimits, h.deps.log);
  const groups: (RateLimitGroup | undefined)[] = [undefined, "feed", "watchlist", "market-data"];
  for (const group of groups) {
    app.get(
      `/${group ?? "plain"}`,
      { config: { access: { scopes: ANY_AUTHENTICATED, ...(group ? { rateLimit: group } : {}) } } },
      async () => ({
        ok: true,
      }),
    );
  }
  app.get("/public", { config: { access: { scopes: ANY_AUTHENTICATED, auth: "optional" } } }, async () => ({
    ok: true,
  }));
  await app.ready();
  return app;
}

describe("quota groups and callers", () => {
  let h: Harness;
  let app: FastifyInstance;
  let proxied: FastifyInstance;
  beforeAll(async () => {
    h = await startHarness("sqlite", { rateLimits: "defaults" });
    app = await groupsApp(h);
    proxied = await groupsApp(h, { TRUST_PROXY: "127.0.0.1" });
  });
  afterAll(async () => {
    await app.close();
    await proxied.close();
    await h.close();
  });

  const get = (url: string, headers: Headers = {}, target = app) => target.inject({ method: "GET", url, headers });

  it("a feed call spends the feed budget, not the default pool; each group has its own", async () => {
    const u = await h.user([]);
    for (let i = 1; i <= 60; i++) expect((await get("/feed", u.headers)).statusCode).toBe(200);
    const refused = await get("/feed", u.headers);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["ratelimit-policy"]).toBe("60;w=60");

    const plain = await get("/plain", u.headers);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers["ratelimit-remaining"]).toBe("59");
    const watchlist = await get("/watchlist", u.headers);
    expect(watchlist.headers["ratelimit-remaining"]).toBe("59");
    expect(watchlist.headers["ratelimit-policy"]).toBe("60;w=60");
    const market = await get("/market-data", u.headers);
    expect(market.statusCode).toBe(200);
    expect(market.headers["ratelimit-limit"]).toBe("120");
    expect(market.headers["ratelimit-remaining"]).toBe("119");
    expect(market.headers["ratelimit-policy"]).toBe("120;w=60");
  });

  it("anonymous callers are limited per client address; X-Forwarded-For is ignored unless the proxy is trusted", async () => {
    const forwardedBy = (ip: string, target: FastifyInstance) => get("/public", { "x-forwarded-for": ip }, target);
    // Untrusted: every request is the socket's address, whatever the header says.
    for (let i = 0; i < 60; i++) expect((await forwardedBy(`10.0.0.${i}`, app)).statusCode).toBe(200);
    const spoofed = await forwardedBy("10.9.9.9", app);
    expect(spoofed.statusCode).toBe(429);
    expect(spoofed.headers["retry-after"]).toBe("60");

    // Trusted proxy (127.0.0.1, inject's address): the forwarded client is the caller.
    for (let i = 0; i < 60; i++) expect((await forwardedBy("203.0.113.7", proxied)).statusCode).toBe(200);
    expect((await forwardedBy("203.0.113.7", proxied)).statusCode).toBe(429);
    const other = await forwardedBy("203.0.113.8", proxied);
    expect(other.statusCode).toBe(200);
    expect(other.headers["ratelimit-remaining"]).toBe("59");
  });

  it("an authenticated call on an anonymous-friendly route spends the user's budget, not the address's", async () => {
    const ip = { "x-forwarded-for": "198.51.100.1" };
    for (let i = 0; i < 60; i++) await get("/public", ip, proxied);
    expect((await get("/public", ip, proxied)).statusCode).toBe(429);
    const u = await h.user([]);
    const res = await get("/public", { ...u.headers, ...ip }, proxied);
    expect(res.statusCode).toBe(200);
    expect(res.headers["ratelimit-remaining"]).toBe("59");
  });
});
