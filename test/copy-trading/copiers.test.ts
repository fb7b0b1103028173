import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aumTierOf } from "../../src/modules/copy-trading/copiers/read-portfolio-copiers.js";
import { mirrorEngineOf } from "../../src/modules/copy-trading/mirrors/mirror-engine.js";
import { engines, type Harness, type Headers, startHarness, type TestUser } from "../support/harness.js";

const COPIES = "/api/v1/copy-trading/copies";
const copiersUrl = (username: string) => `/api/v2/portfolios/${username}/copiers`;

describe("AUM tiers", () => {
  it("bands the money copied: none, then from 0.01, 10k, 100k, 1M, 10M USD", () => {
    expect(aumTierOf(0)).toEqual({ tier: 0, desc: "None" });
    expect(aumTierOf(1)).toEqual({ tier: 1, desc: "Bronze" });
    expect(aumTierOf(999_999)).toEqual({ tier: 1, desc: "Bronze" });
    expect(aumTierOf(1_000_000)).toEqual({ tier: 2, desc: "Silver" });
    expect(aumTierOf(10_000_000)).toEqual({ tier: 3, desc: "Gold" });
    expect(aumTierOf(100_000_000)).toEqual({ tier: 4, desc: "Platinum" });
    expect(aumTierOf(1_000_000_000)).toEqual({ tier: 5, desc: "Diamond" });
  });
});

describe.each(engines())("a portfolio's copiers on %s", (engine) => {
  let h: Harness;
  let trader: TestUser;
  let copierA: TestUser;
  let copierB: TestUser;
  let reader: TestUser;

  const call = async (method: "GET" | "POST" | "PUT" | "DELETE", url: string, as: TestUser, body?: unknown) => {
    const headers: Headers = { ...as.headers, "x-request-id": randomUUID() };
    const res = await h.app.inject({
      method,
      url,
      headers,
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    return { status: res.statusCode, headers: res.headers, body: res.body ? (res.json() as never) : (null as never) };
  };
  const copiers = async (username: string, as: TestUser = reader) => {
    const res = await call("GET", copiersUrl(username), as);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { copiers: number; aumTier: number; aumTierDesc: string };
  };

  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
    trader = await h.user(["trade.demo:write", "user-info:read", "user-info:write"]);
    copierA = await h.user(["trade.demo:write"]);
    copierB = await h.user(["trade.demo:write"]);
    reader = await h.user(["user-info:read"]);
  });
  afterAll(async () => h?.close());

  it("counts the users copying now and bands their money, never showing it", async () => {
    expect(await copiers(trader.user.username)).toEqual({ copiers: 0, aumTier: 0, aumTierDesc: "None" });

    const a = await call("POST", COPIES, copierA, { username: trader.user.username, amount: 5000 });
    expect(a.status).toBe(201);
    expect(await copiers(trader.user.username)).toEqual({ copiers: 1, aumTier: 1, aumTierDesc: "Bronze" });

    const b = await call("POST", COPIES, copierB, { username: trader.user.username, amount: 20000 });
    expect(b.status).toBe(201);
    const res = await call("GET", copiersUrl(trader.user.username), reader);
    expect(res.body).toEqual({ copiers: 2, aumTier: 2, aumTierDesc: "Silver" });
    expect(res.headers["cache-control"]).toBe("public, max-age=3600");

    // An open moves the copies' cash into margin: the money under management is the same.
    const open = await call("POST", "/api/v1/trading/execution/demo/market-open-orders/by-amount", trader, {
      InstrumentID: 100000,
      IsBuy: true,
      Leverage: 1,
      Amount: 10000,
    });
    expect(open.status).toBe(200);
    await mirrorEngineOf(h.deps)!.idle();
    expect(await copiers(trader.user.username)).toEqual({ copiers: 2, aumTier: 2, aumTierDesc: "Silver" });

    // A paused copy still counts; a stopped one does not.
    const mirrorB = (b.body as { mirrorId: number }).mirrorId;
    expect((await call("POST", `${COPIES}/${mirrorB}/pause`, copierB)).status).toBe(200);
    expect((await copiers(trader.user.username)).copiers).toBe(2);
    expect((await call("DELETE", `${COPIES}/${mirrorB}`, copierB)).status).toBeLessThan(300);
    await mirrorEngineOf(h.deps)!.idle();
    expect(await copiers(trader.user.username)).toEqual({ copiers: 1, aumTier: 1, aumTierDesc: "Bronze" });
    expect(JSON.stringify(await copiers(trader.user.username))).not.toContain("5000");
  });

  it("refuses as the other portfolio reads: 404 unknown, 403 opted out (not to the owner), 401, 403 scope", async () => {
    const unknown = await call("GET", copiersUrl("nobody_at_all_here"), reader);
    expect(unknown.status).toBe(404);
    expect((unknown.body as { success: boolean }).success).toBe(false);

    const optedOut = await h.user(["user-info:write", "user-info:read"]);
    expect((await call("PUT", "/api/v1/user-info/privacy", optedOut, { portfolioOptOut: true })).status).toBeLessThan(
      300,
    );
    const refused = await call("GET", copiersUrl(optedOut.user.username), reader);
    expect(refused.status).toBe(403);
    expect(refused.headers["cache-control"]).toBe("no-store");
    expect((await copiers(optedOut.user.username, optedOut)).copiers).toBe(0);

    const anonymous = await h.app.inject({ method: "GET", url: copiersUrl(trader.user.username) });
    expect(anonymous.statusCode).toBe(401);
    expect((await call("GET", copiersUrl(trader.user.username), copierA)).status).toBe(403);
  });
});
