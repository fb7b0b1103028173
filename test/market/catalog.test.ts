import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ASSET_CLASSES,
  CATALOG,
  MARKET_ASSET_TYPES,
  marketAssetType,
  SUB_CATEGORIES,
} from "../../src/modules/market/catalog.js";
import { findInstruments, searchInstruments } from "../../src/modules/market/find-instruments.js";
import { Market } from "../../src/modules/market/market.schemas.js";
import { toMarket } from "../../src/modules/market/market.view.js";
import { ensureInstrumentCatalog } from "../../src/modules/market/seed-catalog.js";
import { engines, type Harness, startHarness } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";

describe("the seeded universe", () => {
  it("covers every asset class with unique ids and symbols", () => {
    const types = new Set(CATALOG.map((e) => ASSET_CLASSES[e.assetClass].assetType));
    expect([...types].sort()).toEqual(["Commodities", "Crypto", "Currencies", "ETF", "Indices", "Stocks"]);
    expect(new Set(CATALOG.map((e) => e.instrumentId)).size).toBe(CATALOG.length);
    expect(new Set(CATALOG.map((e) => e.symbol)).size).toBe(CATALOG.length);
    expect(CATALOG.every((e) => e.price > 0 && e.precision >= 2)).toBe(true);
  });

  it("gives every instrument upstream's Market asset class, metals apart from energy and agriculture", () => {
    const classOf = new Map(
      CATALOG.map((e) => [
        e.symbol,
        marketAssetType({
          assetTypeId: ASSET_CLASSES[e.assetClass].assetTypeId,
          assetTypeSubCategoryId: SUB_CATEGORIES[e.subCategory],
        }),
      ]),
    );
    expect([...classOf.values()].every((t) => (MARKET_ASSET_TYPES as readonly string[]).includes(t))).toBe(true);
    expect(
      Object.fromEntries(
        ["EURUSD", "OIL", "WHEAT", "GOLD", "SPX500", "AAPL", "SPY", "GLD", "BTC"].map((s) => [s, classOf.get(s)]),
      ),
    ).toEqual({
      EURUSD: "FOREX",
      OIL: "CommodityEnergyAgriculture",
      WHEAT: "CommodityEnergyAgriculture",
      GOLD: "CommodityMetals",
      SPX500: "Index",
      AAPL: "Stocks",
      SPY: "ETF",
      GLD: "ETF",
      BTC: "CryptoCoin",
    });
  });
});

describe.each(engines())("instrument catalog on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(async () => h.close());

  it("is present on a fresh harness and seeding again adds nothing", async () => {
    expect(await ensureInstrumentCatalog(h.deps)).toBe(0);
    const all = await findInstruments(
      h.deps,
      CATALOG.map((e) => e.instrumentId),
    );
    expect(all.size).toBe(CATALOG.length);
  });

  it("finds by id, leaving unknown ids out, with upstream's classification", async () => {
    const found = await findInstruments(h.deps, [1001, 100000, 999999, 1001]);
    expect([...found.keys()].sort((a, b) => a - b)).toEqual([1001, 100000]);
    const aapl = found.get(1001)!;
    expect(aapl).toMatchObject({
      symbol: "AAPL",
      displayName: "Apple",
      assetType: "Stocks",
      assetTypeId: 5,
      hasExpirationDate: false,
      allowedLeverages: [1, 2, 5],
      minAmount: 10,
    });
    expect(aapl.avatar.small).toMatch(/^\/api\/v1\/market-data\/avatars\/1001\//);
    expect(found.get(100000)).toMatchObject({
      symbol: "BTC",
      assetType: "Crypto",
      assetTypeId: 10,
      allowedLeverages: [1, 2],
    });
  });

  it("searches symbol prefixes and names case-insensitively, exact symbol first", async () => {
    const btc = await searchInstruments(h.deps, "btc", 10);
    expect(btc[0]!.symbol).toBe("BTC");
    const apple = await searchInstruments(h.deps, "aPPl", 10);
    expect(apple.map((i) => i.symbol)).toEqual(["AAPL"]);
    const spdr = await searchInstruments(h.deps, "spdr", 10);
    expect(spdr.map((i) => i.symbol).sort()).toEqual(["GLD", "SPY", "XLF"]);
    expect(await searchInstruments(h.deps, "%", 10)).toEqual([]);
    expect(await searchInstruments(h.deps, "s", 2)).toHaveLength(2);
  });

  it("renders the spec's Market resource", async () => {
    const aapl = (await findInstruments(h.deps, [1001])).get(1001)!;
    const market = toMarket(aapl);
    expectSchema(Market, market);
    expect(market).toMatchObject({
      id: "1001",
      symbolName: "AAPL",
      internalId: 1001,
      assetType: "Stocks",
      assetTypeId: 5,
      application: "eToro",
    });
    expect(JSON.parse(market.metadata)).toMatchObject({ instrumentId: 1001, exchangeId: 4 });
  });
});
