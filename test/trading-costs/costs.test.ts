import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ASSET_CLASSES, EXCHANGES } from "../../src/modules/market/catalog.js";
import { nightlyFeeCents, sdrtCents, spreadCents } from "../../src/modules/trading/costs/costs-math.js";
import { overnightRatesOf } from "../../src/modules/trading/costs/fee-schedule.js";
import { openCosts } from "../../src/modules/trading/costs/get-costs.js";
import { slTpBandProblems } from "../../src/modules/trading/eligibility/eligibility-rules.js";
import { engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";

const AAPL = 1001;
const BARC = 2001;
const COSTS = "/api/v2/trading/info/demo/costs";

const typeIds = Object.values(ASSET_CLASSES).map((c) => c.assetTypeId);

describe("costs arithmetic (properties)", () => {
  const terms = fc.record({
    assetTypeId: fc.constantFrom(...typeIds),
    exchangeId: fc.constantFrom(...Object.values(EXCHANGES)),
    isBuy: fc.boolean(),
    leverage: fc.constantFrom(1, 2, 5, 10, 20, 30),
    marginCents: fc.integer({ min: 1, max: 1e10 }),
    rate: fc.double({ min: 0.0001, max: 1e5, noNaN: true }),
    spread: fc.double({ min: 0, max: 0.05, noNaN: true }),
  });

  it("every figure is a non-negative whole number of cents", () => {
    fc.assert(
      fc.property(terms, (t) => {
        const bid = t.rate;
        const ask = t.rate * (1 + t.spread);
        const units = ((t.marginCents / 100) * t.leverage) / ask;
        const costs = openCosts(
          t,
          { isBuy: t.isBuy, leverage: t.leverage, units, marginCents: t.marginCents },
          { bid, ask },
        );
        for (const cents of Object.values(costs)) {
          expect(Number.isSafeInteger(cents)).toBe(true);
          expect(cents).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  it("never falls as the amount grows", () => {
    fc.assert(
      fc.property(terms, fc.integer({ min: 0, max: 1e9 }), (t, extra) => {
        const bid = t.rate;
        const ask = t.rate * (1 + t.spread);
        const at = (m: number) =>
          openCosts(
            t,
            { isBuy: t.isBuy, leverage: t.leverage, units: ((m / 100) * t.leverage) / ask, marginCents: m },
            { bid, ask },
          );
        const small = at(t.marginCents);
        const big = at(t.marginCents + extra);
        for (const k of Object.keys(small) as (keyof typeof small)[]) expect(big[k]).toBeGreaterThanOrEqual(small[k]);
      }),
    );
  });

  it("rounds each fee to the exact cent", () => {
    const stocks = overnightRatesOf(ASSET_CLASSES.stocks.assetTypeId);
    // 2,000 USD long at 6.4% a year: 35.07 cents a night → 35.
    expect(nightlyFeeCents(200_000, true, stocks)).toBe(35);
    expect(nightlyFeeCents(200_000, false, stocks)).toBe(16); // 2.9%: 15.89 → 16
    expect(sdrtCents(100_000)).toBe(500); // 0.5% of 1,000 USD
    expect(spreadCents(10, 100, 100.04)).toBe(40);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), (n) => {
        expect(sdrtCents(n)).toBe(Math.round((n * 50) / 10_000));
        expect(Math.abs(sdrtCents(n) - n * 0.005)).toBeLessThanOrEqual(0.5);
      }),
    );
  });

  it("bands: a stop beyond the whole margin is refused, within it accepted", () => {
    const base = { assetTypeId: ASSET_CLASSES.stocks.assetTypeId, isBuy: true, rate: 100, takeProfitRate: 0 };
    expect(slTpBandProblems({ ...base, leverage: 5, stopLossRate: 81 })).toEqual([]);
    expect(slTpBandProblems({ ...base, leverage: 5, stopLossRate: 79 })[0]?.field).toBe("stopLossRate");
    expect(slTpBandProblems({ ...base, leverage: 1, stopLossRate: 0.01 })).toEqual([]);
    expect(slTpBandProblems({ ...base, leverage: 2, stopLossRate: 0, takeProfitRate: 700 })[0]?.field).toBe(
      "takeProfitRate",
    );
  });
});

describe.each(engines())("costs and eligibility over HTTP on %s", (engine) => {
  let h: Harness;
  let u: TestUser;
  beforeAll(async () => {
    h = await startHarness(engine);
    u = await h.user(["trade.demo:write"]);
  });
  afterAll(async () => h.close());

  const post = (url: string, payload: unknown) =>
    h.app.inject({ method: "POST", url, headers: { ...u.headers, "x-request-id": rid() }, payload: payload as object });

  it("breaks down an open's costs, with SDRT only on real UK shares", async () => {
    const res = await post(COSTS, {
      action: "open",
      transaction: "buy",
      instrumentId: AAPL,
      settlementType: "cfd",
      orderType: "mkt",
      leverage: 2,
      amount: 1000,
      orderCurrency: "usd",
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as {
      instrumentId: number;
      symbol: string;
      costs: { costType: string; amount: number; currency: string }[];
    };
    expect(body.instrumentId).toBe(AAPL);
    expect(body.symbol).toBe("AAPL");
    const by = new Map(body.costs.map((c) => [c.costType, c.amount]));
    expect([...by.keys()]).toEqual([
      "markup",
      "marketSpread",
      "transactionFee",
      "overnightFee",
      "overWeekendFee",
      "sdrt",
    ]);
    expect(by.get("overnightFee")).toBe(0.35);
    expect(by.get("overWeekendFee")).toBe(1.05);
    expect(by.get("marketSpread")).toBeGreaterThan(0);
    expect(by.get("sdrt")).toBe(0);

    const uk = (
      await post(COSTS, { action: "open", transaction: "buy", symbol: "barc.l", leverage: 1, amount: 1000 })
    ).json();
    const ukBy = new Map((uk.costs as { costType: string; amount: number }[]).map((c) => [c.costType, c.amount]));
    expect(uk.instrumentId).toBe(BARC);
    expect(ukBy.get("sdrt")).toBeCloseTo(5, 1);
    expect(ukBy.get("overnightFee")).toBe(0);
  });

  it("takes the SDRT it reports when real UK shares are bought, and shows it on the position", async () => {
    const buyer = await h.user(["trade.demo:write"]);
    const as = (payload: object, url: string) =>
      h.app.inject({ method: "POST", url, headers: { ...buyer.headers, "x-request-id": rid() }, payload });
    const pnl = async () =>
      (
        await h.app.inject({
          method: "GET",
          url: "/api/v1/trading/info/demo/pnl",
          headers: { ...buyer.headers, "x-request-id": rid() },
        })
      ).json().clientPortfolio;
    const costs = (
      await as({ action: "open", transaction: "buy", instrumentId: BARC, leverage: 1, amount: 1000 }, COSTS)
    ).json();
    const sdrt = (costs.costs as { costType: string; amount: number }[]).find((c) => c.costType === "sdrt")!.amount;
    expect(sdrt).toBeGreaterThan(4.9);
    const cash0 = (await pnl()).credit as number;
    const res = await as(
      { InstrumentID: BARC, IsBuy: true, Leverage: 1, Amount: 1000 },
      "/api/v1/trading/execution/demo/market-open-orders/by-amount",
    );
    expect(res.statusCode, res.body).toBe(200);
    const after = await pnl();
    expect(after.credit).toBeCloseTo(cash0 - 1000 - sdrt, 10);
    expect(after.realizedPnL).toBeCloseTo(-sdrt, 10);
    expect(after.positions[0].totalExternalTaxes).toBe(sdrt);
    // A leveraged (CFD) position pays none.
    const cfd = await as(
      { InstrumentID: BARC, IsBuy: true, Leverage: 2, Amount: 1000 },
      "/api/v1/trading/execution/demo/market-open-orders/by-amount",
    );
    expect(cfd.statusCode, cfd.body).toBe(200);
    expect((await pnl()).credit).toBeCloseTo(cash0 - 2000 - sdrt, 10);
  });

  it("answers 404 for an unknown instrument or position, 422 for broken rules", async () => {
    expect(
      (await post(COSTS, { action: "open", transaction: "buy", instrumentId: 999999, leverage: 1, amount: 50 }))
        .statusCode,
    ).toBe(404);
    expect((await post(COSTS, { action: "close", transaction: "sell", positionIds: [987654] })).statusCode).toBe(404);
    const broken = await post(COSTS, {
      action: "open",
      transaction: "buy",
      instrumentId: AAPL,
      symbol: "AAPL",
      leverage: 0,
    });
    expect(broken.statusCode).toBe(422);
    expect(broken.json().details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(["body/instrumentId", "body/leverage", "body/amount"]),
    );
  });

  it("lists eligibility per instrument on v2 and the deprecated v1, unknown ones apart", async () => {
    for (const url of ["/api/v2/trading/info/demo/eligibility", "/api/v1/trading/info/demo/eligibility"]) {
      const res = await post(url, { instrumentIds: [AAPL, 424242], symbols: ["AAPL", "NOPE"], currency: "USD" });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.currency).toBe("USD");
      expect(body.notFoundInstrumentIds).toEqual([424242]);
      expect(body.notFoundSymbols).toEqual(["NOPE"]);
      expect(body.eligibilities).toHaveLength(1);
      const e = body.eligibilities[0];
      expect(e).toMatchObject({ instrumentId: AAPL, symbol: "AAPL", allowOpenPosition: true, minPositionExposure: 10 });
      expect(
        e.leverageConfigs.map(
          (c: { settlementType: string; direction: string }) => `${c.settlementType} ${c.direction}`,
        ),
      ).toEqual(["REAL LONG", "CFD LONG", "CFD SHORT"]);
      expect(e.leverageConfigs[2].leverageValues).toEqual([1, 2, 5]);
    }
    const many = await post("/api/v2/trading/info/demo/eligibility", {
      instrumentIds: Array.from({ length: 101 }, (_, i) => i + 1),
    });
    expect(many.statusCode).toBe(422);
    expect((await post("/api/v2/trading/info/demo/eligibility", {})).statusCode).toBe(422);
  });

  it("refuses at open a stop-loss beyond the whole margin", async () => {
    const q =
      h.deps.market.quote(AAPL) ??
      (await import("../../src/modules/market/quotes.js").then((m) => m.currentQuotes(h.deps, [AAPL]))).get(AAPL)!;
    const res = await post("/api/v1/trading/execution/demo/market-open-orders/by-amount", {
      InstrumentID: AAPL,
      IsBuy: true,
      Leverage: 5,
      Amount: 100,
      StopLossRate: Math.round(q.bid * 0.7 * 100) / 100,
    });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain("of the margin");
  });
});
