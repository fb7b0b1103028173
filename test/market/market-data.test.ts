import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CandlesResponse,
  InstrumentsResponse,
  RatesResponse,
  SearchResponse,
} from "../../src/modules/market/market.schemas.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { engines, type Harness, type Headers, rid, startHarness } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";

const RATES = "/api/v1/market-data/instruments/rates";
const INSTRUMENTS = "/api/v1/market-data/instruments";
const SEARCH = "/api/v1/market-data/search";
const candlesUrl = (id: number, dir: string, interval: string, count: number) =>
  `/api/v1/market-data/instruments/${id}/history/candles/${dir}/${interval}/${count}`;

describe.each(engines())("market data on %s", (engine) => {
  let h: Harness;
  let headers: Headers;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { MARKET_SPREAD_BPS: "0" } });
    headers = (await h.user(["trade.demo:read"])).headers;
  });
  afterAll(async () => h.close());

  const get = (url: string, hdrs: Headers = headers) =>
    h.app.inject({ method: "GET", url, headers: { ...hdrs, "x-request-id": rid() } });

  it("rates: bid and ask in the order asked, unknown ids reported", async () => {
    const res = await get(`${RATES}?instrumentIds=100000, 1001,424242,1001`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expectSchema(RatesResponse, body);
    expect(body.rates.map((r: { instrumentID: number }) => r.instrumentID)).toEqual([100000, 1001]);
    expect(body.notFoundInstrumentIds).toEqual([424242]);
    const aapl = body.rates[1];
    expect(aapl.bid).toBeLessThan(aapl.ask);
    expect(aapl.conversionRateAsk).toBe(1);
  });

  it("rates follow the feed tick by tick", async () => {
    await get(`${RATES}?instrumentIds=1003`);
    h.deps.market.useSource(new RecordedSource({ 1003: [400.25] }, h.deps.market.steps));
    await h.deps.market.tick();
    const body = (await get(`${RATES}?instrumentIds=1003`)).json();
    expect(body.rates[0]).toMatchObject({ instrumentID: 1003, bid: 400.25, ask: 400.26, lastExecution: 400.25 });
    expect(body.rates[0].priceRateID).toBe(h.deps.market.steps);
  });

  it("rates: 422 over 100 ids, naming the parameter; 422 on a malformed list", async () => {
    const many = Array.from({ length: 101 }, (_, i) => i + 1).join(",");
    const over = await get(`${RATES}?instrumentIds=${many}`);
    expect(over.statusCode).toBe(422);
    expect(over.json().details[0].field).toBe("querystring/instrumentIds");
    const exactly100 = await get(`${RATES}?instrumentIds=${Array.from({ length: 100 }, (_, i) => i + 1).join(",")}`);
    expect(exactly100.statusCode).toBe(200);
    expect((await get(`${RATES}?instrumentIds=abc`)).statusCode).toBe(422);
    expect((await get(RATES)).statusCode).toBe(422);
  });

  it("instruments: filters by ids, exchanges and types, with allowed leverages", async () => {
    const byId = (await get(`${INSTRUMENTS}?instrumentIds=1001,100000`)).json();
    expectSchema(InstrumentsResponse, byId);
    expect(byId.instrumentDisplayDatas.map((i: { symbolFull: string }) => i.symbolFull)).toEqual(["AAPL", "BTC"]);
    expect(byId.instrumentDisplayDatas[0]).toMatchObject({
      instrumentDisplayName: "Apple",
      instrumentTypeID: 5,
      allowedLeverages: [1, 2, 5],
      minPositionAmount: 10,
    });
    const crypto = (await get(`${INSTRUMENTS}?instrumentTypeIds=10`)).json();
    expect(crypto.instrumentDisplayDatas.length).toBeGreaterThan(3);
    expect(crypto.instrumentDisplayDatas.every((i: { instrumentTypeID: number }) => i.instrumentTypeID === 10)).toBe(
      true,
    );
    const lse = (await get(`${INSTRUMENTS}?exchangeIds=7&instrumentTypeIds=5`)).json();
    expect(lse.instrumentDisplayDatas.map((i: { symbolFull: string }) => i.symbolFull).sort()).toEqual([
      "BARC.L",
      "HSBA.L",
    ]);
  });

  it("search: pages, exact symbol first, projection by fields", async () => {
    const res = await get(`${SEARCH}?searchText=eth&pageSize=5`);
    const body = res.json();
    expectSchema(SearchResponse, body);
    expect(body.items[0]).toMatchObject({ instrumentId: 100001, symbol: "ETH", instrumentType: "Crypto" });
    expect(body.items[0].currentRate).toBeGreaterThan(0);
    const paged = (await get(`${SEARCH}?searchText=&pageSize=10&pageNumber=2`)).json();
    expect(paged.items).toHaveLength(10);
    expect(paged.page).toBe(2);
    expect(paged.totalItems).toBeGreaterThan(40);
    const projected = (await get(`${SEARCH}?searchText=apple&fields=symbol,DisplayName`)).json();
    expect(projected.items).toEqual([{ instrumentId: 1001, symbol: "AAPL", displayname: "Apple" }]);
  });

  it("candles: folded from ticks, both directions, 404 for an unknown instrument", async () => {
    await get(`${RATES}?instrumentIds=1005`);
    h.deps.market.useSource(new RecordedSource({ 1005: [170, 175, 168] }, h.deps.market.steps));
    for (let i = 0; i < 3; i++) await h.deps.market.tick();
    const asc = (await get(candlesUrl(1005, "asc", "OneDay", 5))).json();
    expectSchema(CandlesResponse, asc);
    expect(asc.interval).toBe("OneDay");
    const series = asc.candles[0];
    expect(series.instrumentId).toBe(1005);
    expect(series.candles.length).toBeGreaterThanOrEqual(1);
    expect(series.rangeHigh).toBe(175);
    expect(series.rangeLow).toBe(168);
    expect(series.rangeClose).toBe(168);
    expect(series.volume).toBeGreaterThanOrEqual(4);
    const missing = await get(candlesUrl(999999, "asc", "OneDay", 5));
    expect(missing.statusCode).toBe(404);
    expect((await get(candlesUrl(1005, "up", "OneDay", 5))).statusCode).toBe(422);
    expect((await get(candlesUrl(1005, "asc", "OneDay", 1001))).statusCode).toBe(422);
  });

  it("serves the avatar images it advertises, without credentials", async () => {
    const ok = await h.app.inject({ method: "GET", url: "/api/v1/market-data/avatars/1001/50x50.svg" });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers["content-type"]).toContain("image/svg+xml");
    expect(ok.body).toContain(">AAPL</text>");
    const none = await h.app.inject({ method: "GET", url: "/api/v1/market-data/avatars/999999/50x50.svg" });
    expect(none.statusCode).toBe(404);
  });
});

describe("market data quota", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("sqlite", { env: { RATE_LIMIT_MARKET_DATA: "3/60s" } });
  });
  afterAll(async () => h.close());

  it("spends the market-data pool shared by the market-data routes", async () => {
    const u = await h.user(["demo:read"]);
    const call = (url: string) =>
      h.app.inject({ method: "GET", url, headers: { ...u.headers, "x-request-id": rid() } });
    expect((await call(`${RATES}?instrumentIds=1`)).statusCode).toBe(200);
    expect((await call(INSTRUMENTS)).statusCode).toBe(200);
    const third = await call(`${SEARCH}?searchText=a`);
    expect(third.headers["ratelimit-policy"]).toBe("3;w=60");
    const fourth = await call(`${RATES}?instrumentIds=1`);
    expect(fourth.statusCode).toBe(429);
    expect(fourth.headers["retry-after"]).toBeDefined();
  });
});
