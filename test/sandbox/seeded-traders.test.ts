import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR_SCOPE } from "../../src/core/scopes.js";
import { mirrorEngineOf } from "../../src/modules/copy-trading/mirrors/mirror-engine.js";
import { SEEDED_PLANS } from "../../src/modules/people/history/seed-history.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";

const TRADE = "/sandbox/v1/traders/trade";
const PNL = "/api/v1/trading/info/demo/pnl";

interface Pass {
  trades: { username: string; action: "open" | "close"; instrumentId: number; positionId: number }[];
  skipped: { username: string; instrumentId: number; reason: string }[];
}
interface Portfolio {
  clientPortfolio: {
    positions: { positionID: number; instrumentID: number; isBuy: boolean; leverage: number }[];
    mirrors: { parentUsername: string; positions: { parentPositionID: number; instrumentID: number }[] }[];
  };
}

describe.each(engines())("the seeded traders' strategy on %s", (engine) => {
  let h: Harness;
  let op: TestUser;
  const traders: Record<string, TestUser> = {};

  const call = async (method: "GET" | "POST", url: string, as: TestUser, payload?: object) => {
    const res = await h.app.inject({
      method,
      url,
      headers: { ...as.headers, "x-request-id": randomUUID() },
      ...(payload ? { payload } : {}),
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };
  const pass = async () => (await call("POST", TRADE, op)) as Pass;
  const positionsOf = async (u: TestUser) => ((await call("GET", PNL, u)) as Portfolio).clientPortfolio.positions;

  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
    op = await h.user([OPERATOR_SCOPE]);
    for (const name of ["alice", "bob", "carmen"]) {
      traders[name] = await h.user(["trade.demo:read"], { username: name });
      await positionsOf(traders[name]!); // opens the demo account, as a first read does
    }
  });
  afterAll(async () => h?.close());

  it("a trader holding nothing opens its plan; the next pass rolls its oldest position into the same trade", async () => {
    const first = await pass();
    expect(first.skipped).toEqual([]);
    for (const [name, plan] of Object.entries(SEEDED_PLANS).filter(([n]) => n !== "demo")) {
      const opened = first.trades.filter((t) => t.username === name);
      expect(opened.map((t) => [t.action, t.instrumentId])).toEqual(plan.map((l) => ["open", l.instrumentId]));
      const held = await positionsOf(traders[name]!);
      expect(held.map((p) => p.positionID).sort()).toEqual(opened.map((t) => t.positionId).sort());
      expect(held.map((p) => p.isBuy)).toEqual(plan.map((l) => l.isBuy));
    }

    const before = await positionsOf(traders.bob!);
    const oldest = before.reduce((a, b) => (a.positionID < b.positionID ? a : b));
    const second = await pass();
    const bobs = second.trades.filter((t) => t.username === "bob");
    expect(bobs.map((t) => t.action)).toEqual(["close", "open"]);
    expect(bobs[0]).toMatchObject({ positionId: oldest.positionID, instrumentId: oldest.instrumentID });
    const after = await positionsOf(traders.bob!);
    expect(after.map((p) => p.positionID)).not.toContain(oldest.positionID);
    const rolled = after.find((p) => p.positionID === bobs[1]!.positionId)!;
    expect(rolled).toMatchObject({ instrumentID: oldest.instrumentID, isBuy: oldest.isBuy, leverage: oldest.leverage });
    expect(after).toHaveLength(before.length);
  });

  it("a copier of a seeded trader sees the trader's next trade in its mirror", async () => {
    const copier = await h.user(["trade.demo:write"]);
    const started = await call("POST", "/api/v1/copy-trading/copies", copier, { username: "carmen", amount: 5000 });
    expect(started).toMatchObject({ mirrorId: expect.any(Number) });
    const trades = (await pass()).trades.filter((t) => t.username === "carmen");
    expect(trades.map((t) => t.action)).toEqual(["close", "open"]);
    await mirrorEngineOf(h.deps)!.idle();
    const mirror = ((await call("GET", PNL, copier)) as Portfolio).clientPortfolio.mirrors[0]!;
    expect(mirror.positions.map((p) => p.parentPositionID)).toEqual([trades[1]!.positionId]);
  });

  it("is the operator's alone", async () => {
    const someone = await h.user(["trade.demo:write"]);
    const res = await h.app.inject({ method: "POST", url: TRADE, headers: someone.headers });
    expect(res.statusCode).toBe(403);
  });
});
