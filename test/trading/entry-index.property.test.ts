import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EntryIndex, type WatchedEntry } from "../../src/modules/trading/entry-orders/entry-index.js";

// The entry index against a plain list: any sequence of adds (new orders and re-added ones, on any
// instrument and side), removals (cancels, ends) and ticks reaches exactly the orders a scan of
// the list finds reached, each once, in the index's order: the buys highest trigger first, then the
// sells lowest first, equal triggers by order id. Few ids and few prices, so re-adds, cancels of a
// side's nearest order, equal triggers and the heap's rebuilds (many removals) all happen.

const ids = fc.integer({ min: 1, max: 40 });
const instrument = fc.constantFrom(1, 2, 3, 5_000_000); // the last is beyond the dense tops
const price = fc.integer({ min: 80, max: 120 }).map((n) => n / 2);
const op = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("add" as const),
      orderId: ids,
      instrumentId: instrument,
      isBuy: fc.boolean(),
      triggerRate: price,
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("remove" as const), orderId: ids }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("tick" as const),
      instrumentId: instrument,
      bid: price,
      spread: fc.constantFrom(0, 0.5, 1),
    }),
  },
);

const nearestFirst = (a: WatchedEntry, b: WatchedEntry) =>
  a.isBuy !== b.isBuy
    ? a.isBuy
      ? -1
      : 1
    : (a.isBuy ? b.triggerRate - a.triggerRate : a.triggerRate - b.triggerRate) || a.orderId - b.orderId;

describe("the entry index (property)", () => {
  it("reaches exactly what a scan of the resting orders reaches, each once, nearest first", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300, size: "max" }), (ops) => {
        const index = new EntryIndex();
        const resting = new Map<number, WatchedEntry>();
        for (const o of ops) {
          if (o.kind === "add") {
            const entry = {
              orderId: o.orderId,
              instrumentId: o.instrumentId,
              isBuy: o.isBuy,
              triggerRate: o.triggerRate,
            };
            index.add(entry);
            resting.set(o.orderId, entry);
          } else if (o.kind === "remove") {
            index.remove(o.orderId);
            resting.delete(o.orderId);
          } else {
            const ask = o.bid + o.spread;
            const expected = [...resting.values()]
              .filter(
                (e) => e.instrumentId === o.instrumentId && (e.isBuy ? ask <= e.triggerRate : o.bid >= e.triggerRate),
              )
              .sort(nearestFirst);
            const got = index.update(o.instrumentId, o.bid, ask).map((e) => ({ ...e }));
            expect(got).toEqual(expected);
            for (const e of got) resting.delete(e.orderId);
          }
          expect(index.size).toBe(resting.size);
          for (const id of [1, 2, 3, 40]) expect(index.has(id)).toBe(resting.has(id));
          // Slots left by removed orders stay bounded: at most the live ones and a rebuild's margin per side.
          expect(index.slots).toBeLessThanOrEqual(2 * resting.size + 8 * 64);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("after 8,000 of 10,000 orders are cancelled, holds about the live ones and reaches them in order", () => {
    const index = new EntryIndex();
    for (let id = 1; id <= 10_000; id++) {
      index.add({ orderId: id, instrumentId: 7, isBuy: id % 2 === 0, triggerRate: 50 + (id % 97) });
    }
    for (let id = 1; id <= 10_000; id++) if (id % 5 !== 0) index.remove(id);
    expect(index.size).toBe(2_000);
    // Per side at most its live orders again in removed slots (or fewer than 64).
    expect(index.slots).toBeLessThanOrEqual(2 * 2_000 + 2 * 63);
    // Sells (ids ending in 5) are all reached by a bid of 1,000: lowest trigger first, then id.
    const sells = index.update(7, 1_000, 2_000);
    expect(sells.map((e) => e.orderId)).toEqual(
      Array.from({ length: 1_000 }, (_, i) => 10 * i + 5).sort((a, b) => (a % 97) - (b % 97) || a - b),
    );
    // Buys (ids ending in 0) by an ask of 0.5: highest trigger first, then id.
    const buys = index.update(7, 0, 0.5);
    expect(buys.map((e) => e.orderId)).toEqual(
      Array.from({ length: 1_000 }, (_, i) => 10 * i + 10).sort((a, b) => (b % 97) - (a % 97) || a - b),
    );
    expect(index.size).toBe(0);
    expect(index.slots).toBe(0);
  });

  it("forgets every order on clear, and watches again after it", () => {
    const index = new EntryIndex();
    index.add({ orderId: 1, instrumentId: 1, isBuy: true, triggerRate: 10 });
    index.clear();
    expect(index.size).toBe(0);
    expect(index.update(1, 5, 5)).toEqual([]);
    index.add({ orderId: 2, instrumentId: 1, isBuy: true, triggerRate: 10 });
    expect(index.update(1, 5, 5).map((e) => e.orderId)).toEqual([2]);
  });
});
