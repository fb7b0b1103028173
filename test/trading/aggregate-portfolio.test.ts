import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mirrorEngineOf } from "../../src/modules/copy-trading/mirrors/mirror-engine.js";
import { engines, type Harness, type Headers, startHarness, type TestUser } from "../support/harness.js";

const AAPL = 1001;
const BTC = 100000;
const AGGREGATE = "/api/v1/trading/info/demo/aggregate-portfolio";
const BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";

interface Aggregate {
  totalMarginAccountCurrency: number;
  accountCurrencyReturn: number;
  liquidationValueAccountCurrency: number;
  totalFees: number;
  instrumentId: number;
  netUnits: number;
  avgLeverage: number;
  avgOpenRate: number;
  netCurrentExposureAccountCurrency: number;
}
interface AggregateBody {
  cid: number;
  accountTotals: Record<string, number>;
  instrumentAggregates: Aggregate[];
  mirrors: {
    mirrorId: number;
    mirrorAvailableCash: number;
    mirrorTotals: Record<string, number>;
    instrumentAggregates: Aggregate[];
  }[];
}
interface PortfolioPosition {
  instrumentID: number;
  amount: number;
  units: number;
  isBuy: boolean;
  leverage: number;
  openRate: number;
  totalFees: number;
  unrealizedPnL: { pnL: number; closeRate: number } | null;
}
interface PnlBody {
  clientPortfolio: {
    CID?: number;
    credit: number;
    equity: number;
    positions: PortfolioPosition[];
    mirrors: { mirrorID: number; availableAmount: number; positions: PortfolioPosition[] }[];
  };
}

/** Cents of a USD figure, so sums are compared exactly. */
const cents = (usd: number) => Math.round(usd * 100);
const sumCents = (xs: number[]) => xs.reduce((s, x) => s + cents(x), 0);

/** The portfolio's positions grouped as the aggregate must be: margin and P/L in cents, net units. */
function expected(positions: PortfolioPosition[]) {
  const by = new Map<number, PortfolioPosition[]>();
  for (const p of positions) by.set(p.instrumentID, [...(by.get(p.instrumentID) ?? []), p]);
  return [...by.entries()]
    .sort(([a], [b]) => a - b)
    .map(([instrumentId, list]) => ({
      instrumentId,
      margin: sumCents(list.map((p) => p.amount)),
      pnl: sumCents(list.map((p) => p.unrealizedPnL?.pnL ?? 0)),
      fees: sumCents(list.map((p) => p.totalFees)),
      netUnits: list.reduce((s, p) => s + (p.isBuy ? p.units : -p.units), 0),
    }));
}
const actual = (aggregates: Aggregate[]) =>
  aggregates.map((a) => ({
    instrumentId: a.instrumentId,
    margin: cents(a.totalMarginAccountCurrency),
    pnl: cents(a.accountCurrencyReturn),
    fees: cents(a.totalFees),
    netUnits: a.netUnits,
  }));

describe.each(engines())("the aggregated demo portfolio on %s", (engine) => {
  let h: Harness;
  let trader: TestUser;
  let copier: TestUser;
  let mirrorId: number;

  const call = async (method: "GET" | "POST", url: string, as: TestUser, body?: unknown) => {
    const headers: Headers = { ...as.headers, "x-request-id": randomUUID() };
    const res = await h.app.inject({
      method,
      url,
      headers,
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    return { status: res.statusCode, body: res.body ? (res.json() as never) : (null as never) };
  };
  const get = async <T>(url: string, as: TestUser): Promise<T> => {
    const res = await call("GET", url, as);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as T;
  };
  const open = async (as: TestUser, order: object) => {
    const res = await call("POST", BY_AMOUNT, as, order);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };

  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
    trader = await h.user(["trade.demo:write"]);
    copier = await h.user(["trade.demo:write"]);
    const started = await call("POST", "/api/v1/copy-trading/copies", copier, {
      username: trader.user.username,
      amount: 5000,
    });
    expect(started.status).toBe(201);
    mirrorId = (started.body as { mirrorId: number }).mirrorId;
    // The copier's own positions: two on AAPL (different leverages), one on BTC.
    await open(copier, { InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 1000.37 });
    await open(copier, { InstrumentID: AAPL, IsBuy: true, Leverage: 2, Amount: 333.33 });
    await open(copier, { InstrumentID: BTC, IsBuy: true, Leverage: 1, Amount: 250 });
    // The trader's, copied into the copy at the copier's share.
    await open(trader, { InstrumentID: BTC, IsBuy: true, Leverage: 1, Amount: 10000 });
    await open(trader, { InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 2000 });
    await mirrorEngineOf(h.deps)!.idle();
  });
  afterAll(async () => h?.close());

  it("sums the portfolio's positions per instrument, own and copied, to the cent", async () => {
    const agg = await get<AggregateBody>(AGGREGATE, copier);
    const pnl = (await get<PnlBody>("/api/v1/trading/info/demo/pnl", copier)).clientPortfolio;

    expect(actual(agg.instrumentAggregates)).toEqual(expected(pnl.positions));
    expect(agg.instrumentAggregates.map((a) => a.instrumentId)).toEqual([AAPL, BTC]);
    const aapl = agg.instrumentAggregates[0]!;
    expect(aapl.totalMarginAccountCurrency).toBe(1333.7);
    expect(aapl.avgLeverage).toBeCloseTo((1000.37 * 1 + 333.33 * 2) / 1333.7, 9);
    const own = pnl.positions.filter((p) => p.instrumentID === AAPL);
    expect(aapl.avgOpenRate).toBeCloseTo(
      own.reduce((s, p) => s + p.units * p.openRate, 0) / own.reduce((s, p) => s + p.units, 0),
      6,
    );
    expect(aapl.netCurrentExposureAccountCurrency).toBeCloseTo(
      own.reduce((s, p) => s + p.units * p.unrealizedPnL!.closeRate, 0),
      6,
    );
    for (const a of agg.instrumentAggregates) {
      expect(cents(a.liquidationValueAccountCurrency)).toBe(
        cents(a.totalMarginAccountCurrency) + cents(a.accountCurrencyReturn),
      );
    }

    expect(agg.mirrors.map((m) => m.mirrorId)).toEqual([mirrorId]);
    const mirror = agg.mirrors[0]!;
    const copy = pnl.mirrors[0]!;
    expect(mirror.instrumentAggregates.length).toBe(2);
    expect(actual(mirror.instrumentAggregates)).toEqual(expected(copy.positions));
    expect(mirror.mirrorAvailableCash).toBe(copy.availableAmount);
    // The copy's value is its cash and its positions at their value now.
    expect(cents(mirror.mirrorTotals.mirrorLiquidationValue!)).toBe(
      cents(copy.availableAmount) +
        sumCents(copy.positions.map((p) => p.amount)) +
        sumCents(copy.positions.map((p) => p.unrealizedPnL?.pnL ?? 0)),
    );
    expect(mirror.mirrorTotals.mirrorNetFunding).toBe(5000);

    // Account totals: the portfolio's equity, cash and margins, exactly.
    const t = agg.accountTotals;
    expect(t.accountAvailableCash).toBe(pnl.credit);
    expect(t.accountBalance).toBe(pnl.credit);
    expect(t.accountFrozenCash).toBe(0);
    expect(cents(t.accountTotalValue!)).toBe(cents(pnl.equity));
    expect(cents(t.accountTotalValue!)).toBe(
      cents(t.accountAvailableCash!) + cents(t.accountTotalUsedMargin!) + cents(t.accountCurrentPnl!),
    );
  });

  it("scopes the lists with instrumentIds and mirrorIds, never the totals", async () => {
    const whole = await get<AggregateBody>(AGGREGATE, copier);
    const btc = await get<AggregateBody>(`${AGGREGATE}?instrumentIds=${BTC}`, copier);
    expect(btc.instrumentAggregates.map((a) => a.instrumentId)).toEqual([BTC]);
    expect(btc.mirrors[0]!.instrumentAggregates.map((a) => a.instrumentId)).toEqual([BTC]);
    expect(btc.accountTotals).toEqual(whole.accountTotals);
    expect(btc.mirrors[0]!.mirrorTotals).toEqual(whole.mirrors[0]!.mirrorTotals);

    const both = await get<AggregateBody>(`${AGGREGATE}?instrumentIds=${AAPL},${BTC}&conversionMode=Realtime`, copier);
    expect(both.instrumentAggregates).toEqual(whole.instrumentAggregates);

    const onlyCopy = await get<AggregateBody>(`${AGGREGATE}?mirrorIds=${mirrorId}`, copier);
    expect(onlyCopy.instrumentAggregates).toEqual([]);
    expect(onlyCopy.mirrors).toEqual(whole.mirrors);

    const onlyOwn = await get<AggregateBody>(`${AGGREGATE}?mirrorIds=0`, copier);
    expect(onlyOwn.instrumentAggregates).toEqual(whole.instrumentAggregates);
    expect(onlyOwn.mirrors).toEqual([]);
    expect(onlyOwn.accountTotals).toEqual(whole.accountTotals);

    const none = await get<AggregateBody>(`${AGGREGATE}?instrumentIds=999999`, copier);
    expect(none.instrumentAggregates).toEqual([]);
    expect(none.mirrors[0]!.instrumentAggregates).toEqual([]);
  });

  it("an account with nothing open: cash only, empty lists", async () => {
    const fresh = await h.user(["trade.demo:read"]);
    const agg = await get<AggregateBody>(AGGREGATE, fresh);
    expect(agg.instrumentAggregates).toEqual([]);
    expect(agg.mirrors).toEqual([]);
    expect(agg.accountTotals.accountTotalUsedMargin).toBe(0);
    expect(agg.accountTotals.accountTotalValue).toBe(agg.accountTotals.accountAvailableCash);
  });

  it("refuses malformed filters and callers without the read scope", async () => {
    expect((await call("GET", `${AGGREGATE}?instrumentIds=abc`, copier)).status).toBe(422);
    expect((await call("GET", `${AGGREGATE}?mirrorIds=1,,2`, copier)).status).toBe(422);
    expect((await call("GET", `${AGGREGATE}?conversionMode=Other`, copier)).status).toBe(422);
    const outsider = await h.user(["notifications:read"]);
    expect((await call("GET", AGGREGATE, outsider)).status).toBe(403);
  });
});
