import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mirrorEngineOf } from "../../src/modules/copy-trading/mirrors/mirror-engine.js";
import { engines, type Harness, type Headers, startHarness, type TestUser } from "../support/harness.js";

const BTC = 100000;
const COPIES = "/api/v1/copy-trading/copies";

describe.each(engines())("copying a person on %s", (engine) => {
  let h: Harness;
  let trader: TestUser;
  let copier: TestUser;

  const call = async (method: "GET" | "POST" | "DELETE", url: string, as: TestUser, body?: unknown) => {
    const headers: Headers = { ...as.headers, "x-request-id": randomUUID() };
    const res = await h.app.inject({
      method,
      url,
      headers,
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    return { status: res.statusCode, body: res.body ? (res.json() as never) : (null as never) };
  };
  const portfolio = async (as: TestUser) =>
    (await call("GET", "/api/v1/trading/info/demo/pnl", as)).body as {
      clientPortfolio: {
        credit: number;
        equity: number;
        positions: { positionID: number; units: number; amount: number }[];
        mirrors: {
          mirrorID: number;
          availableAmount: number;
          positions: { amount: number; parentPositionID: number }[];
        }[];
      };
    };

  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
    trader = await h.user(["trade.demo:write"]);
    copier = await h.user(["trade.demo:write", "notifications:read"]);
  });
  afterAll(async () => h?.close());

  it("copies a person's opens and closes at the copier's share; funds, pause and stop; the person is told", async () => {
    const started = await call("POST", COPIES, copier, { username: trader.user.username, amount: 5000 });
    expect(started.status).toBe(201);
    const mirrorId = (started.body as { mirrorId: number }).mirrorId;
    const notes = await h.deps.db.kysely
      .selectFrom("notifications")
      .selectAll()
      .where("userId", "=", trader.user.id)
      .execute();
    expect(notes.some((n) => JSON.stringify(n).includes(`${copier.user.username} started copying you`))).toBe(true);

    // The trader (100,000) opens 10,000: the copy (5,000) opens 500.
    const open = await call("POST", "/api/v1/trading/execution/demo/market-open-orders/by-amount", trader, {
      InstrumentID: BTC,
      IsBuy: true,
      Leverage: 1,
      Amount: 10000,
    });
    expect(open.status).toBe(200);
    await mirrorEngineOf(h.deps)!.idle();
    let mine = (await portfolio(copier)).clientPortfolio;
    expect(mine.mirrors).toHaveLength(1);
    expect(mine.mirrors[0]!.positions.map((p) => p.amount)).toEqual([500]);
    expect(mine.credit).toBe(95000);

    // Funds in and out, exactly.
    expect((await call("POST", `${COPIES}/${mirrorId}/funds`, copier, { amount: 250.5 })).status).toBe(200);
    expect((await call("POST", `${COPIES}/${mirrorId}/funds`, copier, { amount: -100 })).status).toBe(200);
    expect((await call("POST", `${COPIES}/${mirrorId}/funds`, copier, { amount: -1_000_000 })).status).toBe(422);
    mine = (await portfolio(copier)).clientPortfolio;
    expect(mine.credit).toBe(94849.5);
    expect(mine.mirrors[0]!.availableAmount).toBe(4650.5);

    // Paused: a new open is not copied.
    expect((await call("POST", `${COPIES}/${mirrorId}/pause`, copier)).status).toBe(200);
    await call("POST", "/api/v1/trading/execution/demo/market-open-orders/by-amount", trader, {
      InstrumentID: BTC,
      IsBuy: false,
      Leverage: 1,
      Amount: 1000,
    });
    await mirrorEngineOf(h.deps)!.idle();
    expect((await portfolio(copier)).clientPortfolio.mirrors[0]!.positions).toHaveLength(1);
    expect((await call("POST", `${COPIES}/${mirrorId}/resume`, copier)).status).toBe(200);

    // Rules: not oneself, not a private user, not a second-rate amount.
    expect((await call("POST", COPIES, trader, { username: trader.user.username, amount: 500 })).status).toBe(422);
    expect((await call("POST", COPIES, copier, { username: trader.user.username, amount: 5 })).status).toBe(422);
    expect((await call("POST", COPIES, copier, { username: "no-such-user-here", amount: 500 })).status).toBe(404);
    await h.deps.db.kysely.updateTable("users").set({ isPrivate: 1 }).where("id", "=", copier.user.id).execute();
    expect((await call("POST", COPIES, trader, { username: copier.user.username, amount: 500 })).status).toBe(404);

    // Stop: the copy closes at market and everything comes back.
    expect((await call("DELETE", `${COPIES}/${mirrorId}`, copier)).status).toBe(204);
    mine = (await portfolio(copier)).clientPortfolio;
    expect(mine.mirrors).toEqual([]);
    const account = await h.deps.db.kysely
      .selectFrom("demoAccounts")
      .selectAll()
      .where("userId", "=", copier.user.id)
      .executeTakeFirstOrThrow();
    expect(Number(account.cashCents) - Number(account.realizedPnlCents)).toBe(Number(account.startingCents));
    expect(((await call("GET", COPIES, copier)).body as { copies: unknown[] }).copies).toEqual([]);
    expect((await call("DELETE", `${COPIES}/${mirrorId}`, copier)).status).toBe(404);
  });
});
