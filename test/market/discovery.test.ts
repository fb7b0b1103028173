import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock } from "../../src/core/clock.js";
import { DiscoverResponse, InstrumentItem } from "../../src/modules/market/discovery/discovery.schemas.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import {
  ClosingPricesResponse,
  ExchangesResponse,
  InstrumentTypesResponse,
  StocksIndustriesResponse,
} from "../../src/modules/market/reference-data/reference-data.schemas.js";
import { engines, type Harness, type Headers, rid, startHarness } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";

const DAY = 86_400_000;
const DISCOVER = "/api/v1/instruments/discover";

type Item = Record<string, unknown> & { instrumentId: number };

describe.each(engines())("market reference data and the Asset Explorer on %s", (engine) => {
  let h: Harness;
  let headers: Headers;
  // Wednesday 25 February 2026, 10:00 UTC; the test moves it by hand.
  let now = Date.parse("2026-02-25T10:00:00.000Z");
  const clock: Clock = { now: () => new Date(now) };

  beforeAll(async () => {
    h = await startHarness(engine, { clock, env: { MARKET_SPREAD_BPS: "0" } });
    headers = (await h.user(["trade.demo:read"])).headers;
  });
  afterAll(async () => h?.close());

  const get = (url: string, hdrs: Headers = headers) =>
    h.app.inject({ method: "GET", url, headers: { ...hdrs, "x-request-id": rid() } });
  const items = async (url: string): Promise<Item[]> => {
    const res = await get(url);
    expect(res.statusCode, res.body).toBe(200);
    expectSchema(DiscoverResponse, res.json());
    return res.json().items;
  };

  it("exchanges: all by id, or those asked for; unknown ids left out", async () => {
    const all = await get("/api/v1/market-data/exchanges");
    expect(all.statusCode).toBe(200);
    expectSchema(ExchangesResponse, all.json());
    const list = all.json().exchangeInfo as { exchangeID: number; exchangeDescription: string }[];
    expect(list.map((e) => e.exchangeID)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(list.find((e) => e.exchangeID === 4)?.exchangeDescription).toBe("NASDAQ");
    const some = (await get("/api/v1/market-data/exchanges?exchangeIds=5, 4,999")).json();
    expect(some.exchangeInfo).toEqual([
      { exchangeID: 4, exchangeDescription: "NASDAQ" },
      { exchangeID: 5, exchangeDescription: "NYSE" },
    ]);
    expect((await get("/api/v1/market-data/exchanges?exchangeIds=abc")).statusCode).toBe(422);
  });

  it("instrument types and stock industries", async () => {
    const types = await get("/api/v1/market-data/instrument-types");
    expectSchema(InstrumentTypesResponse, types.json());
    expect(types.json().instrumentTypes).toContainEqual({ instrumentTypeID: 5, instrumentTypeDescription: "Stocks" });
    expect((await get("/api/v1/market-data/instrument-types?instrumentTypeIds=10")).json()).toEqual({
      instrumentTypes: [{ instrumentTypeID: 10, instrumentTypeDescription: "Crypto" }],
    });
    const industries = await get("/api/v1/market-data/stocks-industries");
    expectSchema(StocksIndustriesResponse, industries.json());
    expect(industries.json().stocksIndustries).toHaveLength(9);
    expect((await get("/api/v1/market-data/stocks-industries?stocksIndustryIds=8,4")).json()).toEqual({
      stocksIndustries: [
        { industryID: 4, industryName: "Financial" },
        { industryID: 8, industryName: "Technology" },
      ],
    });
    expect((await get("/api/v1/market-data/stocks-industries?stocksIndustryIds=1,")).statusCode).toBe(422);
  });

  it("closing prices: none before the engine has a day behind it", async () => {
    const res = await get("/api/v1/market-data/instruments/history/closing-price");
    expect(res.statusCode).toBe(200);
    expectSchema(ClosingPricesResponse, res.json());
    const aapl = res.json().find((c: { instrumentId: number }) => c.instrumentId === 1001);
    expect(aapl).toEqual({
      instrumentId: 1001,
      officialClosingPrice: -1,
      isMarketOpen: true,
      closingPrices: {
        daily: { price: -1, date: "0001-01-01T00:00:00.000Z" },
        weekly: { price: -1, date: "0001-01-01T00:00:00.000Z" },
        monthly: { price: -1, date: "0001-01-01T00:00:00.000Z" },
      },
    });
    // Every instrument of the catalog is listed.
    const catalog = (await get("/api/v1/market-data/instruments")).json().instrumentDisplayDatas;
    expect(res.json()).toHaveLength(catalog.length);
  });

  it("closing prices are the daily candles' closes before today, this Monday and the 1st", async () => {
    // AAPL's mid on each day (one tick a day, the last of the day at 20:00): Wed 25 Feb … Tue 3 Mar.
    const days = [200, 201, 202, 203, 204, 205, 206];
    h.deps.market.useSource(new RecordedSource({ 1001: days }, h.deps.market.steps));
    for (let d = 0; d < days.length; d++) {
      now = Date.parse("2026-02-25T20:00:00.000Z") + d * DAY;
      await h.deps.market.tick();
    }
    // Tuesday 3 March, 20:00: yesterday was Monday 2 March (205), the week before ended on Sunday
    // 1 March (204), the month on Saturday 28 February (203).
    const res = (await get("/api/v1/market-data/instruments/history/closing-price")).json();
    const aapl = res.find((c: { instrumentId: number }) => c.instrumentId === 1001);
    expect(aapl.officialClosingPrice).toBe(205);
    expect(aapl.closingPrices).toEqual({
      daily: { price: 205, date: "2026-03-02T00:00:00.000Z" },
      weekly: { price: 204, date: "2026-03-01T00:00:00.000Z" },
      monthly: { price: 203, date: "2026-02-28T00:00:00.000Z" },
    });
    // The same closes the candles operation serves.
    const candles = (await get("/api/v1/market-data/instruments/1001/history/candles/desc/OneDay/2")).json();
    expect(candles.candles[0].candles[1]).toMatchObject({ fromDate: "2026-03-02T00:00:00.000Z", close: 205 });
    // The Asset Explorer's price changes are measured against them.
    const [item] = await items(
      `${DISCOVER}?symbol=AAPL&fields=currentRate,internalClosingPrice,dailyPriceChange,weeklyPriceChange,monthlyPriceChange,absDailyPriceChange`,
    );
    expect(item).toEqual({
      instrumentId: 1001,
      currentRate: 206,
      internalClosingPrice: 205,
      dailyPriceChange: 0.4878,
      absDailyPriceChange: 0.4878,
      weeklyPriceChange: 0.9804,
      monthlyPriceChange: 1.4778,
    });
  });

  it("discover: the first page of everything, 50 by id, every field the catalog has", async () => {
    const res = await get(DISCOVER);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expectSchema(DiscoverResponse, body);
    const total = (await get("/api/v1/market-data/instruments")).json().instrumentDisplayDatas.length;
    expect(body).toMatchObject({ page: 1, pageSize: 50, totalItems: total });
    expect(body.items.length).toBe(Math.min(50, total));
    const ids = body.items.map((i: Item) => i.instrumentId);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    const aapl = body.items.find((i: Item) => i.instrumentId === 1001);
    expect(aapl).toMatchObject({
      displayname: "Apple",
      symbol: "AAPL",
      instrumentTypeID: 5,
      instrumentType: "Stocks",
      exchangeID: 4,
      internalExchangeName: "NASDAQ",
      internalIndustryId: 3,
      internalStockIndustryName: "Consumer Goods",
      industryNameId: 101,
      sectorNameId: 3,
      marketCap: 2_910_000_000_000,
      logo150x150: "/api/v1/market-data/avatars/1001/150x150.svg",
      isOpen: true,
    });
    // A currency pair has no industry nor market cap: those fields are left out, not invented.
    const eurusd = body.items.find((i: Item) => i.instrumentId === 1);
    expect(eurusd).not.toHaveProperty("marketCap");
    expect(eurusd).not.toHaveProperty("internalIndustryId");
  });

  it("discover: stocks by a market-cap range, largest first, projected", async () => {
    const list = await items(
      `${DISCOVER}?instrumentType=stocks&marketCapMin=1000000000000&marketCapMax=3000000000000&sort=-marketCap&fields=symbol,marketCap`,
    );
    expect(list).toEqual([
      { instrumentId: 1001, symbol: "AAPL", marketCap: 2_910_000_000_000 },
      { instrumentId: 1007, symbol: "NVDA", marketCap: 2_260_000_000_000 },
      { instrumentId: 1005, symbol: "GOOG", marketCap: 2_130_000_000_000 },
      { instrumentId: 1004, symbol: "AMZN", marketCap: 1_930_000_000_000 },
      { instrumentId: 1006, symbol: "META", marketCap: 1_210_000_000_000 },
    ]);
    // Bounds are inclusive.
    const exact = await items(`${DISCOVER}?marketCapMin=2910000000000&marketCapMax=2910000000000&fields=symbol`);
    expect(exact).toEqual([{ instrumentId: 1001, symbol: "AAPL" }]);
    // Field names in any case; equality on text ignores case; several sort keys.
    const nasdaqTech = await items(`${DISCOVER}?EXCHANGEID=4&internalStockIndustryName=TECHNOLOGY&sort=displayName`);
    expect(nasdaqTech.map((i) => i.symbol)).toEqual(["AMD", "GOOG", "META", "MSFT", "NVDA"]);
    const bySectorThenName = await items(`${DISCOVER}?instrumentTypeID=5&sort=-sectorNameId,symbol&fields=symbol`);
    expect(bySectorThenName.slice(0, 3).map((i) => i.symbol)).toEqual(["AMD", "GOOG", "META"]);
    // Booleans.
    expect(await items(`${DISCOVER}?isDelisted=true`)).toEqual([]);
    // Instruments without a value sort last in either direction.
    const byCap = await items(`${DISCOVER}?sort=marketCap&pageSize=100&fields=marketCap`);
    const firstMissing = byCap.findIndex((i) => i.marketCap === undefined);
    expect(firstMissing).toBeGreaterThan(0);
    expect(byCap.slice(firstMissing).every((i) => i.marketCap === undefined)).toBe(true);
  });

  it("discover: pages do not overlap and end with an empty page", async () => {
    const all = (await items(`${DISCOVER}?pageSize=100&sort=-instrumentTypeID&fields=symbol`)).map(
      (i) => i.instrumentId,
    );
    const paged: number[] = [];
    for (let page = 1; ; page++) {
      const res = (await get(`${DISCOVER}?pageSize=7&page=${page}&sort=-instrumentTypeID&fields=symbol`)).json();
      expect(res.totalItems).toBe(all.length);
      if (res.items.length === 0) break;
      expect(res.items.length).toBeLessThanOrEqual(7);
      paged.push(...res.items.map((i: Item) => i.instrumentId));
    }
    expect(paged).toEqual(all);
    const beyond = (await get(`${DISCOVER}?page=1000`)).json();
    expect(beyond).toMatchObject({ page: 1000, pageSize: 50, items: [] });
  });

  it("discover: 400 on an unknown field, a malformed value or a bound on text; 422 on bad paging", async () => {
    const cases = [
      ["peRatioMin=10", "peRatioMin"],
      ["nonsense=1", "nonsense"],
      ["marketCapMin=lots", "marketCapMin"],
      ["symbolMin=A", "symbolMin"],
      ["isOpen=yes", "isOpen"],
      ["sort=-price", "sort"],
      ["sort=symbol,,marketCap", "sort"],
      ["sort=symbol,-symbol", "sort"],
      ["fields=symbol,color", "fields"],
      ["symbol=AAPL&symbol=MSFT", "symbol"],
    ];
    for (const [query, param] of cases) {
      const res = await get(`${DISCOVER}?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().errorCode).toBe("BadRequest");
      expect(res.json().errorMessage).toContain(param);
    }
    for (const query of ["page=0", "pageSize=0", "pageSize=101", "page=x"]) {
      expect((await get(`${DISCOVER}?${query}`)).statusCode, query).toBe(422);
    }
  });

  it("an instrument by symbol, in any case, projected; 404 for an unknown symbol", async () => {
    const res = await get("/api/v1/instruments/msft");
    expect(res.statusCode).toBe(200);
    expectSchema(InstrumentItem, res.json());
    expect(res.json()).toMatchObject({ instrumentId: 1003, symbol: "MSFT", displayname: "Microsoft" });
    expect((await get("/api/v1/instruments/BARC.L?fields=displayName,internalExchangeName")).json()).toEqual({
      instrumentId: 2001,
      displayname: "Barclays",
      internalExchangeName: "London Stock Exchange",
    });
    const missing = await get("/api/v1/instruments/NOPE");
    expect(missing.statusCode).toBe(404);
    expect(missing.json().errorCode).toBe("NotFound");
    expect((await get("/api/v1/instruments/AAPL?fields=wings")).statusCode).toBe(400);
  });

  it("shorteners restrict the fields; 400 for an unknown one or fields outside it; 404 first needs a known preset", async () => {
    const summary = await get("/api/v1/instruments/AAPL/summary");
    expect(summary.statusCode).toBe(200);
    expect(Object.keys(summary.json()).sort()).toEqual(
      [
        "instrumentId",
        "displayname",
        "symbol",
        "instrumentType",
        "internalExchangeName",
        "currentRate",
        "dailyPriceChange",
        "logo50x50",
      ].sort(),
    );
    expect((await get("/api/v1/instruments/AAPL/classification?fields=marketCap")).json()).toEqual({
      instrumentId: 1001,
      marketCap: 2_910_000_000_000,
    });
    const unknown = await get("/api/v1/instruments/AAPL/everything");
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details[0].message).toContain("summary");
    expect((await get("/api/v1/instruments/AAPL/logos?fields=marketCap")).statusCode).toBe(400);
    expect((await get("/api/v1/instruments/NOPE/summary")).statusCode).toBe(404);
  });

  it("every read needs a market-data scope", async () => {
    const stranger = (await h.user(["feed:read"])).headers;
    for (const url of [
      DISCOVER,
      "/api/v1/instruments/AAPL",
      "/api/v1/instruments/AAPL/summary",
      "/api/v1/market-data/exchanges",
      "/api/v1/market-data/instrument-types",
      "/api/v1/market-data/stocks-industries",
      "/api/v1/market-data/instruments/history/closing-price",
    ]) {
      expect((await get(url, stranger)).statusCode, url).toBe(403);
    }
  });
});
