import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withActor } from "../../src/modules/context.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import { openMarketOrder } from "../../src/modules/trading/open-market-order.js";
import { getTradeHistory } from "../../src/modules/trading/read-account.js";
import { loadTriggers, persistTrailingStops } from "../../src/modules/trading/triggers.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

describe.each(engines())("trigger index rebuilt from the store on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(async () => h.close());

  it("watches the open positions' levels again after a restart, and only those", async () => {
    const u = await h.user(["trade.demo:write"]);
    const actor = u.actor;
    const ctx = withActor(h.deps, actor);
    await currentQuotes(h.deps, [1003]);
    h.deps.market.useSource(new RecordedSource({ 1003: [400] }, h.deps.market.steps));
    await h.deps.market.tick();
    const open = (sl: number, tp: number) =>
      openMarketOrder(ctx, randomUUID(), {
        instrumentId: 1003,
        isBuy: true,
        leverage: 1,
        amount: 100,
        stopLossRate: sl,
        takeProfitRate: tp,
      });
    const a = await open(390, 0);
    const b = await open(0, 420);
    await open(0, 0);
    // A restart: the in-memory index is empty until it is loaded.
    const index = h.deps.triggers.index;
    index.remove(a.order.positionId);
    index.remove(b.order.positionId);
    expect(index.size).toBe(0);
    expect(await loadTriggers(h.deps)).toBe(2);
    expect(index.currentStop(a.order.positionId)).toBe(390);
    h.deps.market.useSource(new RecordedSource({ 1003: [385] }, h.deps.market.steps));
    await h.deps.market.tick();
    const history = await getTradeHistory(ctx, { page: 1, pageSize: 10 });
    expect(history.map((t) => [t.positionId, t.closeReason, t.closeRate])).toEqual([
      [a.order.positionId, "StopLoss", 390],
    ]);
  });

  it("a trailing stop resumes after a restart from the level it had moved to once saved", async () => {
    const u = await h.user(["trade.demo:write"]);
    const actor = u.actor;
    const ctx = withActor(h.deps, actor);
    await currentQuotes(h.deps, [1003]);
    h.deps.market.useSource(new RecordedSource({ 1003: [400] }, h.deps.market.steps));
    await h.deps.market.tick();
    const { order } = await openMarketOrder(ctx, randomUUID(), {
      instrumentId: 1003,
      isBuy: true,
      leverage: 1,
      amount: 100,
      stopLossRate: 390,
      isTslEnabled: true,
    });
    const index = h.deps.triggers.index;
    h.deps.market.useSource(new RecordedSource({ 1003: [420] }, h.deps.market.steps));
    await h.deps.market.tick();
    const moved = index.currentStop(order.positionId)!;
    expect(moved).toBeGreaterThan(409);

    expect(await persistTrailingStops(h.deps)).toBeGreaterThanOrEqual(1);
    expect(await persistTrailingStops(h.deps)).toBe(0);
    const row = await h.deps.db.kysely
      .selectFrom("demoPositions")
      .select("stopLossRate")
      .where("positionId", "=", order.positionId)
      .executeTakeFirstOrThrow();
    expect(row.stopLossRate).toBe(moved);

    // A restart: the index is rebuilt from the store.
    index.remove(order.positionId);
    await loadTriggers(h.deps);
    expect(index.currentStop(order.positionId)).toBe(moved);
    h.deps.market.useSource(new RecordedSource({ 1003: [405] }, h.deps.market.steps));
    await h.deps.market.tick();
    const history = await getTradeHistory(ctx, { page: 1, pageSize: 10 });
    expect(history.map((t) => [t.positionId, t.closeReason, t.closeRate])).toEqual([
      [order.positionId, "TrailingStopLoss", moved],
    ]);
  });
});
