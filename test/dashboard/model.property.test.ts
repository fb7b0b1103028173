import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pnlCents } from "../../src/modules/trading/math.js";
import { mergeRate, type Position, positionPnl } from "../../web/dashboard/model.js";

const price = fc.double({ min: 0.0001, max: 1_000_000, noNaN: true, noDefaultInfinity: true });

describe("the dashboard's live P/L (web/dashboard/model.ts)", () => {
  it("is the server's P/L to the cent: the bid for a long, the ask for a short, never below minus the margin", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.double({ min: 0.000001, max: 100_000, noNaN: true, noDefaultInfinity: true }),
        price,
        price,
        fc.double({ min: 0, max: 0.05, noNaN: true }),
        fc.integer({ min: 1, max: 100_000_000 }),
        (isBuy, units, openRate, bid, spread, amountCents) => {
          const ask = bid * (1 + spread);
          const position = { isBuy, units, openRate, amount: amountCents / 100 } as Position;
          const page = positionPnl(position, { bid, ask, last: bid, at: 0 });
          const server = pnlCents(isBuy, units, openRate, isBuy ? bid : ask, amountCents);
          expect(Math.round(page! * 100)).toBe(server);
        },
      ),
    );
  });

  it("has no P/L without a price", () => {
    expect(positionPnl({ isBuy: true, units: 1, openRate: 1, amount: 1 } as Position, undefined)).toBeNull();
  });

  it("keeps the last value of each side a delta does not carry", () => {
    fc.assert(
      fc.property(price, price, price, fc.boolean(), (bid, ask, next, moveBid) => {
        const first = mergeRate(undefined, {
          Bid: String(bid),
          Ask: String(ask),
          LastExecution: String(bid),
          Date: "2026-01-01T00:00:00Z",
        })!;
        const delta: Record<string, string> = moveBid ? { Bid: String(next) } : { Ask: String(next) };
        const merged = mergeRate(first, { ...delta, Date: "2026-01-01T00:00:01Z" })!;
        expect(merged.bid).toBe(moveBid ? next : bid);
        expect(merged.ask).toBe(moveBid ? ask : next);
        expect(merged.last).toBe(bid);
        expect(merged.at).toBe(Date.parse("2026-01-01T00:00:01Z"));
      }),
    );
    // a delta before any snapshot holds one side only: no quote yet
    expect(mergeRate(undefined, { Bid: "1" })).toBeUndefined();
  });
});
