import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/core/errors.js";
import { EntryIndex } from "../../src/modules/trading/entry-orders/entry-index.js";
import { amountForUnits, unitsFor } from "../../src/modules/trading/math.js";
import { contractsForUnits, sizeOf, unitsForContracts } from "../../src/modules/trading/orders/sizing.js";

const positive = fc.double({ min: 1e-6, max: 1e6, noNaN: true, noDefaultInfinity: true });
const contractSize = fc.constantFrom(0.01, 0.1, 1, 5, 10, 25, 100, 1000);
const cents = fc.integer({ min: 1, max: 10_000_000_000 });
const rate = fc.double({ min: 0.0001, max: 100_000, noNaN: true, noDefaultInfinity: true });
const leverage = fc.constantFrom(1, 2, 5, 10, 20, 30);
const maybe = (arb: fc.Arbitrary<number>) => fc.option(arb, { nil: undefined });

const problemsOf = (f: () => unknown) => {
  try {
    f();
    return [];
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return (error.problems ?? []).map((p) => p.field);
  }
};

describe("order sizing (amount / units / contracts)", () => {
  it("contracts → units → contracts is the identity (to float precision)", () => {
    fc.assert(
      fc.property(positive, contractSize, (contracts, size) => {
        const units = unitsForContracts(contracts, size);
        expect(contractsForUnits(units, size)).toBeCloseTo(contracts, 6);
      }),
    );
  });

  it("a contracts order is a units order of contracts × contract size, costing the same margin", () => {
    fc.assert(
      fc.property(positive, contractSize, leverage, rate, (contracts, size, lev, r) => {
        const sizing = sizeOf({ contracts }, size, "X");
        expect(sizing.requestType).toBe("byContracts");
        expect(sizing.requestedContracts).toBe(contracts);
        expect(sizing.size.units).toBe(contracts * size);
        expect(amountForUnits(sizing.size.units!, lev, r)).toBe(amountForUnits(contracts * size, lev, r));
      }),
    );
  });

  it("an amount order keeps the amount; its units at any rate cost that amount again (to the cent)", () => {
    fc.assert(
      fc.property(cents, leverage, rate, (c, lev, r) => {
        const sizing = sizeOf({ amount: c / 100 }, undefined, "X");
        expect(sizing).toEqual({ size: { amount: c / 100 }, requestType: "byAmount", requestedContracts: null });
        expect(Math.abs(amountForUnits(unitsFor(c, lev, r), lev, r) - c)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("exactly one of amount, units or contracts; any other combination names a field", () => {
    fc.assert(
      fc.property(maybe(positive), maybe(positive), maybe(positive), (amount, units, contracts) => {
        const given = [amount, units, contracts].filter((v) => v !== undefined).length;
        const fields = problemsOf(() => sizeOf({ amount, units, contracts }, 10, "X"));
        if (given === 1) expect(fields).toEqual([]);
        else expect(fields).toHaveLength(1);
      }),
    );
  });

  it("contracts where the instrument defines no contract size: a 422 naming contracts", () => {
    fc.assert(
      fc.property(positive, (contracts) => {
        expect(problemsOf(() => sizeOf({ contracts }, undefined, "AAPL"))).toEqual(["contracts"]);
      }),
    );
    expect(problemsOf(() => sizeOf({ contracts: 0 }, 10, "X"))).toEqual(["contracts"]);
    expect(problemsOf(() => sizeOf({ contracts: -1 }, 10, "X"))).toEqual(["contracts"]);
  });
});

describe("the entry index", () => {
  const orders = fc.array(
    fc.record({
      instrumentId: fc.constantFrom(1, 2, 3),
      isBuy: fc.boolean(),
      triggerRate: fc.double({ min: 1, max: 200, noNaN: true, noDefaultInfinity: true }),
    }),
    { maxLength: 200 },
  );
  const ticks = fc.array(
    fc.record({
      instrumentId: fc.constantFrom(1, 2, 3),
      bid: fc.double({ min: 1, max: 200, noNaN: true, noDefaultInfinity: true }),
      spread: fc.double({ min: 0, max: 2, noNaN: true, noDefaultInfinity: true }),
    }),
    { maxLength: 50 },
  );

  it("returns exactly the orders a plain scan finds reached (buy: ask ≤ trigger; sell: bid ≥ trigger), each once", () => {
    fc.assert(
      fc.property(orders, ticks, (list, path) => {
        const index = new EntryIndex();
        const resting = new Map(list.map((o, i) => [i + 1, { ...o, orderId: i + 1 }]));
        for (const o of resting.values()) index.add(o);
        for (const t of path) {
          const ask = t.bid + t.spread;
          const expected = [...resting.values()]
            .filter(
              (o) => o.instrumentId === t.instrumentId && (o.isBuy ? ask <= o.triggerRate : t.bid >= o.triggerRate),
            )
            .map((o) => o.orderId)
            .sort((a, b) => a - b);
          const got = index
            .update(t.instrumentId, t.bid, ask)
            .map((o) => o.orderId)
            .sort((a, b) => a - b);
          expect(got).toEqual(expected);
          for (const id of got) resting.delete(id);
          expect(index.size).toBe(resting.size);
        }
      }),
    );
  });
});
