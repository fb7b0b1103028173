import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Deps, withActor } from "../../src/modules/context.js";
import { findInstruments } from "../../src/modules/market/find-instruments.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import { openMarketOrder } from "../../src/modules/trading/open-market-order.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { type Harness, startHarness } from "../support/harness.js";

/*
 * Everything a process keeps in memory belongs to the deps createDeps made (decision 0094): two
 * deps on one store in one process are as separate as two processes without a shared Redis.
 */
describe("two deps in one process, on one store", () => {
  let h: Harness;
  let other: Deps;
  beforeAll(async () => {
    h = await startHarness("sqlite");
    other = await createDeps(h.config);
  });
  afterAll(async () => {
    await closeDeps(other);
    await h.close();
  });

  it("watch their own triggers: a stop-loss opened through one is not watched by the other", async () => {
    const u = await h.user(["trade.demo:write"]);
    await currentQuotes(h.deps, [1003]);
    const mid = h.deps.market.quote(1003)!.mid;
    const { order } = await openMarketOrder(
      withActor(h.deps, u.actor),
      randomUUID(),
      { instrumentId: 1003, isBuy: true, leverage: 1, amount: 100, stopLossRate: mid * 0.9, takeProfitRate: 0 },
      "by-amount",
    );
    expect(h.deps.triggers.index.currentStop(order.positionId)).toBeCloseTo(mid * 0.9, 2);
    expect(other.triggers.index.currentStop(order.positionId)).toBeUndefined();
  });

  it("keep their own catalog entries, prices, counters and key stores", async () => {
    await findInstruments(other, [1001]);
    expect(other.instrumentCache.has(1001)).toBe(true);
    expect(h.deps.instrumentCache.has(1002)).toBe(false);
    await findInstruments(h.deps, [1002]);
    expect(other.instrumentCache.has(1002)).toBe(false);

    expect(other.market.has(1003)).toBe(false);

    const limits = [{ pool: "default", max: 1, windowMs: 60_000 }];
    const caller = `u:${randomUUID()}`;
    expect((await h.deps.rateLimits.consume(caller, limits)).admitted).toBe(true);
    expect((await h.deps.rateLimits.consume(caller, limits)).admitted).toBe(false);
    expect((await other.rateLimits.consume(caller, limits)).admitted).toBe(true);

    expect(other.signingKeys).not.toBe(h.deps.signingKeys);
    expect((await other.signingKeys.current()).kid).toBe((await h.deps.signingKeys.current()).kid);
  });
});
