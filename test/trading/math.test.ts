import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { amountForUnits, marginShare, pnlCents, toCents, unitsFor } from "../../src/modules/trading/math.js";

const cents = fc.integer({ min: 1, max: 10_000_000_000 });
const rate = fc.double({ min: 0.0001, max: 100_000, noNaN: true, noDefaultInfinity: true });
const leverage = fc.constantFrom(1, 2, 5, 10, 20, 30);

describe("demo trading arithmetic", () => {
  it("toCents accepts exactly the amounts with at most two decimals", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), (c) => {
        expect(toCents(c / 100)).toBe(c);
      }),
    );
    expect(toCents(10.001)).toBeNull();
    expect(toCents(Number.NaN)).toBeNull();
    expect(toCents(0.1 + 0.2)).toBe(30);
  });

  it("units = amount × leverage ÷ rate, and the margin of those units is the amount again (to the cent)", () => {
    fc.assert(
      fc.property(cents, leverage, rate, (amount, lev, r) => {
        const units = unitsFor(amount, lev, r);
        expect(units).toBeGreaterThan(0);
        expect(Math.abs(amountForUnits(units, lev, r) - amount)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("P/L of a long and of a short over the same move are opposite, and never lose more than the margin", () => {
    fc.assert(
      fc.property(cents, leverage, rate, rate, (amount, lev, open, close) => {
        const units = unitsFor(amount, lev, open);
        const long = pnlCents(true, units, open, close, amount);
        const short = pnlCents(false, units, open, close, amount);
        expect(Number.isInteger(long)).toBe(true);
        expect(long).toBeGreaterThanOrEqual(-amount);
        expect(short).toBeGreaterThanOrEqual(-amount);
        // Equal and opposite up to the one rounding to a cent (and float error on huge figures).
        const tolerance = 1 + Math.abs(long) * 1e-12;
        if (long > -amount && short > -amount) expect(Math.abs(long + short)).toBeLessThanOrEqual(tolerance);
        // With leverage 1 and a rise, a long earns amount × (close/open − 1).
        if (lev === 1 && close >= open)
          expect(Math.abs(long - amount * (close / open - 1))).toBeLessThanOrEqual(tolerance);
      }),
    );
  });

  it("closing a position in parts returns exactly its margin, in whole cents", () => {
    fc.assert(
      fc.property(
        cents,
        fc.array(fc.double({ min: 0.01, max: 0.99, noNaN: true }), { maxLength: 8 }),
        (amount, fractions) => {
          let units = 1000;
          let left = amount;
          let returned = 0;
          for (const f of fractions) {
            const closed = units * f;
            const share = marginShare(left, units, closed);
            expect(Number.isInteger(share)).toBe(true);
            expect(share).toBeGreaterThanOrEqual(0);
            expect(share).toBeLessThanOrEqual(left);
            returned += share;
            left -= share;
            units -= closed;
          }
          returned += marginShare(left, units, units);
          expect(returned).toBe(amount);
        },
      ),
    );
  });
});
