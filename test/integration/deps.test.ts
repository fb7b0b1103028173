import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Deps } from "../../src/modules/context.js";
import { findInstruments } from "../../src/modules/market/find-instruments.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
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
    const stop = Math.round(h.deps.market.quote(1003)!.mid * 90) / 100;
    const res = await h.app.inject({
      method: "POST",
      url: "/api/v1/trading/execution/demo/market-open-orders/by-amount",
      headers: u.headers,
      payload: { InstrumentID: 1003, IsBuy: true, Leverage: 1, Amount: 100, StopLossRate: stop },
    });
    expect(res.statusCode).toBe(200);
    const positionId = res.json().orderForOpen.positionID as number;
    expect(h.deps.triggers.index.currentStop(positionId)).toBe(stop);
    expect(other.triggers.index.currentStop(positionId)).toBeUndefined();
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
