import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import { engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";

const AAPL = 1001;
const BTC = 100000;
const BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";

function manualClock(start: string) {
  let now = Date.parse(start);
  return { clock: { now: () => new Date(now) }, set: (iso: string) => (now = Date.parse(iso)) };
}

describe.each(engines())("market hours on %s", (engine) => {
  // Friday 20 November 2026, 15:00 in New York (EST): the US stock exchanges are open.
  const time = manualClock("2026-11-20T20:00:00.000Z");
  let h: Harness;
  let u: TestUser;
  beforeAll(async () => {
    h = await startHarness(engine, { clock: time.clock, env: { MARKET_HOURS: "exchange" } });
    u = await h.user(["trade.demo:write"]);
  });
  afterAll(async () => h.close());

  const open = (body: object) =>
    h.app.inject({ method: "POST", url: BY_AMOUNT, headers: { ...u.headers, "x-request-id": rid() }, payload: body });
  const rates = async (id: number) =>
    (
      await h.app.inject({
        method: "GET",
        url: `/api/v1/market-data/instruments/rates?instrumentIds=${id}`,
        headers: { ...u.headers, "x-request-id": rid() },
      })
    ).json().rates[0] as { bid: number; ask: number; date: string };

  it("stands prices still over the weekend, refuses market orders then, and fills a gapped stop at the first price", async () => {
    time.set("2026-11-20T20:00:00.000Z");
    await currentQuotes(h.deps, [AAPL, BTC]);
    await h.deps.market.tick();
    const q = await rates(AAPL);
    const stop = Math.round(q.bid * 0.95 * 100) / 100;
    const opened = await open({ InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 500, StopLossRate: stop });
    expect(opened.statusCode, opened.body).toBe(200);
    const positionId = opened.json().orderForOpen.positionID as number;

    // Saturday: AAPL does not move, BTC does.
    time.set("2026-11-21T15:00:00.000Z");
    const btcBefore = await rates(BTC);
    for (let i = 0; i < 3; i++) await h.deps.market.tick();
    const closedQuote = await rates(AAPL);
    expect(closedQuote).toEqual(await rates(AAPL));
    expect(closedQuote.bid).toBe(h.deps.market.quote(AAPL)!.bid);
    expect((await rates(AAPL)).date).toBe(closedQuote.date);
    expect((await rates(BTC)).date).not.toBe(btcBefore.date);
    const refused = await open({ InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 100 });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain("is closed now");
    const close = await h.app.inject({
      method: "POST",
      url: `/api/v1/trading/execution/demo/market-close-orders/positions/${positionId}`,
      headers: { ...u.headers, "x-request-id": rid() },
      payload: { InstrumentID: AAPL },
    });
    expect(close.statusCode).toBe(422);
    expect(close.body).toContain("is closed now");
    const crypto = await open({ InstrumentID: BTC, IsBuy: true, Leverage: 1, Amount: 100 });
    expect(crypto.statusCode, crypto.body).toBe(200);

    // Monday 09:31 New York: the first price gaps 20% down, through the stop.
    time.set("2026-11-23T14:31:00.000Z");
    const gapped = closedQuote.bid * 0.8;
    h.deps.market.useSource(new RecordedSource({ [AAPL]: [gapped] }, h.deps.market.steps));
    await h.deps.market.tick();
    const first = h.deps.market.quote(AAPL)!;
    expect(first.bid).toBeLessThan(stop);
    const history = await h.app.inject({
      method: "GET",
      url: "/api/v1/trading/info/trade/demo/history",
      headers: { ...u.headers, "x-request-id": rid() },
    });
    const trade = (history.json() as { positionId: number; closeRate: number; closeReason: string }[]).find(
      (t) => t.positionId === positionId,
    )!;
    expect(trade.closeReason).toBe("StopLoss");
    // Filled at the first price after the open, not at the stop's level.
    expect(trade.closeRate).toBe(first.bid);
    expect(trade.closeRate).not.toBe(stop);
  });

  it("reports the market closed in eligibility while it is", async () => {
    time.set("2026-11-26T15:00:00.000Z"); // Thanksgiving: US exchanges closed
    const res = await h.app.inject({
      method: "POST",
      url: "/api/v2/trading/info/demo/eligibility",
      headers: { ...u.headers, "x-request-id": rid() },
      payload: { instrumentIds: [AAPL, BTC] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const byId = new Map(
      (res.json().eligibilities as { instrumentId: number; allowOpenPosition: boolean }[]).map((e) => [
        e.instrumentId,
        e,
      ]),
    );
    expect(byId.get(AAPL)!.allowOpenPosition).toBe(false);
    expect(byId.get(BTC)!.allowOpenPosition).toBe(true);
  });
});

describe.each(engines())("MARKET_HOURS=always on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    // A Sunday, when every stock exchange is closed.
    h = await startHarness(engine, { clock: { now: () => new Date("2026-11-22T12:00:00.000Z") } });
  });
  afterAll(async () => h.close());

  it("is the harness's default (and the default outside production), and trades stocks at any hour", async () => {
    expect(h.config.marketHours.mode).toBe("always");
    expect(loadConfig({}).marketHours.mode).toBe("always");
    expect(
      loadConfig({ NODE_ENV: "production", SECRETS_KEY: Buffer.alloc(32, 7).toString("base64") }).marketHours.mode,
    ).toBe("exchange");
    expect(() => loadConfig({ MARKET_HOURS: "sometimes" })).toThrow(/MARKET_HOURS must be exchange or always/);
    const u = await h.user(["trade.demo:write"]);
    await currentQuotes(h.deps, [AAPL]);
    const before = h.deps.market.quote(AAPL)!;
    await h.deps.market.tick();
    expect(h.deps.market.quote(AAPL)!.priceRateId).toBeGreaterThan(before.priceRateId);
    const res = await h.app.inject({
      method: "POST",
      url: BY_AMOUNT,
      headers: u.headers,
      payload: { InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 100 },
    });
    expect(res.statusCode, res.body).toBe(200);
  });
});
