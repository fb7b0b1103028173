import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compound,
  dailyReturn,
  downsample,
  periodRange,
  RISK_THRESHOLDS,
  riskScoreOf,
  TRADING_DAYS,
} from "../../src/modules/people/history/returns.js";
import { statsFor } from "../../src/modules/people/history/stats.js";

describe("time-weighted returns (decision 0138)", () => {
  it("the worked example: a deposit is neither a gain nor a loss", () => {
    // Day 1: the account opens with 10,000.00 and closes at 10,500.00: +5%.
    const d1 = { day: "2026-03-02", equityCents: 1_050_000, depositsCents: 1_000_000 };
    // Day 2: 5,000.00 is put in (a copy allocation received); the close is 15,750.00. Of that, 5,000 is
    // the deposit: the money that was there made 10,750 from 10,500, +2.380952…%.
    const d2 = { day: "2026-03-03", equityCents: 1_575_000, depositsCents: 1_500_000 };
    // Day 3: 3,000.00 is taken out; the close is 12,600.00: (12,600 + 3,000) / 15,750 − 1 = −0.952380…%.
    const d3 = { day: "2026-03-04", equityCents: 1_260_000, depositsCents: 1_200_000 };
    const r1 = dailyReturn(undefined, d1);
    const r2 = dailyReturn(d1, d2);
    const r3 = dailyReturn(d2, d3);
    expect(r1).toBeCloseTo(0.05, 12);
    expect(r2).toBeCloseTo(10_750 / 10_500 - 1, 12);
    expect(r3).toBeCloseTo(15_600 / 15_750 - 1, 12);
    // The period's gain chains the days: 1.05 × 1.0238095 × 0.9904762 − 1 = +6.4761…%, whereas the
    // naive (12,600 − 10,000) / 10,000 = +26% would count the net 2,000 put in as profit.
    expect(compound([r1, r2, r3])).toBeCloseTo(1.05 * (10_750 / 10_500) * (15_600 / 15_750) - 1, 12);
    expect(compound([r1, r2, r3])).toBeCloseTo(0.064761904761, 9);
  });

  it("an account with nothing at the previous close has no return", () => {
    expect(
      dailyReturn({ day: "a", equityCents: 0, depositsCents: 0 }, { day: "b", equityCents: 0, depositsCents: 0 }),
    ).toBe(0);
  });

  it("compounding is associative: a month's gain chains its days however they are grouped", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -0.5, max: 0.5, noNaN: true }), { maxLength: 60 }),
        fc.nat(60),
        (rs, cut) => {
          const k = Math.min(cut, rs.length);
          const split = (1 + compound(rs.slice(0, k))) * (1 + compound(rs.slice(k))) - 1;
          expect(split).toBeCloseTo(compound(rs), 9);
        },
      ),
    );
  });
});

describe("risk score (decision 0139)", () => {
  const returns = fc.array(fc.double({ min: -0.2, max: 0.2, noNaN: true }), { minLength: 0, maxLength: 40 });

  it("is 1 to 10", () => {
    fc.assert(
      fc.property(returns, (rs) => {
        const s = riskScoreOf(rs);
        expect(s).toBeGreaterThanOrEqual(1);
        expect(s).toBeLessThanOrEqual(10);
      }),
    );
  });

  it("a more volatile series never scores lower: the same days with larger swings", () => {
    fc.assert(
      fc.property(returns, fc.double({ min: 1, max: 20, noNaN: true }), (rs, k) => {
        const mean = rs.reduce((s, r) => s + r, 0) / Math.max(1, rs.length);
        // Every deviation from the mean scaled by k ≥ 1: the standard deviation grows by k.
        const wilder = rs.map((r) => mean + (r - mean) * k);
        expect(riskScoreOf(wilder)).toBeGreaterThanOrEqual(riskScoreOf(rs));
      }),
    );
  });

  it("a flat series scores 1; thresholds are where the score steps", () => {
    expect(riskScoreOf([0.001, 0.001, 0.001])).toBe(1);
    // Alternating ±x has a sample standard deviation a little above x; annualised ×√252.
    const at = (vol: number) => {
      const x = vol / Math.sqrt(TRADING_DAYS);
      return riskScoreOf(Array.from({ length: 1000 }, (_, i) => (i % 2 ? x : -x)));
    };
    expect(at(0.005)).toBe(1);
    for (const [i, t] of RISK_THRESHOLDS.entries()) expect(at(t * 1.01)).toBe(i + 2);
    expect(at(2)).toBe(10);
  });
});

describe("periods and downsampling", () => {
  it("names the ranges decision 0138 gives", () => {
    expect(periodRange("CurrMonth", "2026-05-17")).toEqual({ from: "2026-05-01", to: "2026-05-17" });
    expect(periodRange("CurrQuarter", "2026-05-17")).toEqual({ from: "2026-04-01", to: "2026-05-17" });
    expect(periodRange("CurrYear", "2026-05-17")).toEqual({ from: "2026-01-01", to: "2026-05-17" });
    expect(periodRange("LastYear", "2026-05-17")).toEqual({ from: "2025-01-01", to: "2025-12-31" });
    expect(periodRange("OneMonthAgo", "2026-03-31")).toEqual({ from: "2026-03-01", to: "2026-03-31" });
    expect(periodRange("OneYearAgo", "2026-05-17")).toEqual({ from: "2025-05-18", to: "2026-05-17" });
    expect(periodRange("LastTwoYears", "2026-05-17")).toEqual({ from: "2024-05-18", to: "2026-05-17" });
  });

  it("keeps at most count points, the last included", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 100 }), fc.integer({ min: 1, max: 120 }), (xs, n) => {
        const out = downsample(xs, n);
        expect(out.length).toBe(Math.min(n, xs.length));
        if (xs.length > 0) expect(out[out.length - 1]).toBe(xs[xs.length - 1]);
      }),
    );
  });

  it("search figures: the period's gain is the compound of its days, in percent", () => {
    const series = [
      { day: "2026-04-30", dailyReturn: 0.1, riskScore: 3 },
      { day: "2026-05-01", dailyReturn: 0.02, riskScore: 4 },
      { day: "2026-05-02", dailyReturn: -0.01, riskScore: 2 },
    ];
    const month = statsFor(series, "2026-05-02").find((s) => s.period === "CurrMonth")!;
    expect(month.gain).toBeCloseTo((1.02 * 0.99 - 1) * 100, 3);
    expect(month.maxDailyRisk).toBe(4);
    expect(month.dailyGain).toBeCloseTo(-1, 6);
    expect(month.riskScore).toBe(2);
  });
});
