import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/core/errors.js";
import type { Quote } from "../../src/core/market.js";
import type { Instrument } from "../../src/modules/market/find-instruments.js";
import { type OpenOrderInput, type OrderSize, validate } from "../../src/modules/trading/open-market-order.js";

const instrument: Instrument = {
  instrumentId: 1001,
  symbol: "AAPL",
  displayName: "Apple",
  assetType: "Stocks",
  assetTypeId: 5,
  assetTypeSubCategoryId: 0,
  exchangeId: 4,
  hasExpirationDate: false,
  avatar: { small: "", medium: "", large: "" },
  allowedLeverages: [1, 2, 5],
  minAmount: 10,
  updated: "2024-01-01T00:00:00.000Z",
};
const quote: Quote = { instrumentId: 1001, bid: 199.9, ask: 200.1, mid: 200, date: "", priceRateId: 1 };

/** The problems validate reports, or [] when it accepts the order. */
function problemsOf(input: OpenOrderInput): { field: string; problem: string }[] {
  try {
    validate(input, instrument, quote);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("ValidationFailed");
    return [...((error as AppError).problems ?? [])];
  }
}

const DOMAIN_FIELDS = ["instrumentId", "leverage", "amount", "units", "stopLossRate", "takeProfitRate", "isTslEnabled"];

const size: fc.Arbitrary<OrderSize> = fc.oneof(
  fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((amount) => ({ amount })),
  fc.double({ min: -1e4, max: 1e4, noNaN: true }).map((units) => ({ units })),
);
const order: fc.Arbitrary<OpenOrderInput> = fc
  .record({
    isBuy: fc.boolean(),
    leverage: fc.constantFrom(0, 1, 2, 3, 5, 10),
    stopLossRate: fc.option(fc.double({ min: -10, max: 400, noNaN: true }), { nil: undefined }),
    takeProfitRate: fc.option(fc.double({ min: -10, max: 400, noNaN: true }), { nil: undefined }),
    isTslEnabled: fc.option(fc.boolean(), { nil: undefined }),
    isNoStopLoss: fc.option(fc.boolean(), { nil: undefined }),
    isNoTakeProfit: fc.option(fc.boolean(), { nil: undefined }),
  })
  .chain((terms) => size.map((s) => ({ instrumentId: 1001, ...terms, ...s }) as OpenOrderInput));

describe("demo order validation", () => {
  it("reports problems on domain fields only, with the size's own field, each as the rest of a sentence", () => {
    fc.assert(
      fc.property(order, (input) => {
        for (const p of problemsOf(input)) {
          expect(DOMAIN_FIELDS).toContain(p.field);
          // The order is sized by one field: a problem never names the other.
          expect(p.field).not.toBe(input.units === undefined ? "units" : "amount");
          expect(p.problem).toMatch(/^[a-z]/);
          expect(p.problem).not.toMatch(/[.\n]$/);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("accepts every amount of at least the minimum, in cents, with an allowed leverage and no levels", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 100_000_000 }),
        fc.constantFrom(1, 2, 5),
        fc.boolean(),
        (cents, leverage, isBuy) => {
          const amount = cents / 100;
          const plan = validate({ instrumentId: 1001, isBuy, leverage, amount }, instrument, quote);
          expect(plan.amountCents).toBe(cents);
          expect(plan.requestedUnits).toBeNull();
          expect(plan.rate).toBe(isBuy ? quote.ask : quote.bid);
        },
      ),
    );
  });

  it("refuses every positive amount under the minimum on `amount`, saying the minimum and the amount", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999 }), (cents) => {
        const amount = cents / 100;
        expect(problemsOf({ instrumentId: 1001, isBuy: true, leverage: 1, amount })).toEqual([
          {
            field: "amount",
            problem: `must be at least 10 USD (the minimum position amount for AAPL); got ${amount} USD`,
          },
        ]);
      }),
    );
  });

  it("sizes by units on `units`: the margin is units × rate ÷ leverage, and under the minimum is a problem there", () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-9, max: 1e4, noNaN: true }), fc.constantFrom(1, 2, 5), (units, leverage) => {
        const problems = problemsOf({ instrumentId: 1001, isBuy: true, leverage, units });
        const margin = Math.round(((units * quote.ask) / leverage) * 100);
        if (margin >= 1000) {
          expect(problems).toEqual([]);
          expect(validate({ instrumentId: 1001, isBuy: true, leverage, units }, instrument, quote)).toMatchObject({
            amountCents: margin,
            units,
            requestedUnits: units,
          });
        } else {
          expect(problems.map((p) => p.field)).toEqual(["units"]);
          expect(problems[0]!.problem).toMatch(/^must come to a margin of at least 10 USD/);
        }
      }),
    );
  });

  it("names another field in braces, so that each reader names it in its own terms", () => {
    const problems = problemsOf({
      instrumentId: 1001,
      isBuy: true,
      leverage: 1,
      amount: 100,
      stopLossRate: 150,
      isNoStopLoss: true,
    });
    expect(problems).toEqual([
      { field: "stopLossRate", problem: "must be absent (or null) when {isNoStopLoss} is true" },
    ]);
  });
});
