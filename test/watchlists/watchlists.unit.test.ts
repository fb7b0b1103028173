import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { AppError } from "../../src/core/errors.js";
import {
  type DynamicQuery,
  dynamicUrlOf,
  matches,
  parseDynamicQuery,
} from "../../src/modules/watchlists/dynamic-query.js";

const queryArb: fc.Arbitrary<DynamicQuery> = fc
  .record(
    {
      searchText: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() === s && s !== ""),
      assetType: fc.constantFrom("Stocks", "Crypto", "ETF", "Currencies"),
      assetTypeId: fc.integer({ min: 0, max: 999_999_999 }),
      assetTypeSubCategoryId: fc.integer({ min: 0, max: 999_999_999 }),
      exchangeId: fc.integer({ min: 0, max: 999_999_999 }),
    },
    { requiredKeys: [] },
  )
  .filter((q) => Object.keys(q).length > 0);

const randomCase = (word: string) =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((flags) => [...word].map((c, i) => (flags[i] ? c.toUpperCase() : c.toLowerCase())).join(""));

describe("dynamic watchlist queries", () => {
  it("round-trips: parsing the canonical dynamicUrl gives back the query", () => {
    fc.assert(
      fc.property(queryArb, (q) => {
        const url = dynamicUrlOf(q);
        expect(url.startsWith("/api/v1/market-data/search?")).toBe(true);
        expect(parseDynamicQuery(url)).toEqual(q);
        // The bare query string and an absolute URL mean the same.
        expect(parseDynamicQuery(url.split("?")[1]!)).toEqual(q);
        expect(parseDynamicQuery(`https://api.example.com${url}`)).toEqual(q);
        // Canonical: formatting twice changes nothing.
        expect(dynamicUrlOf(parseDynamicQuery(url))).toBe(url);
      }),
    );
  });

  it("accepts parameter names in any casing", () => {
    fc.assert(
      fc.property(randomCase("assetTypeId"), fc.integer({ min: 0, max: 1000 }), (name, value) => {
        expect(parseDynamicQuery(`${name}=${value}`)).toEqual({ assetTypeId: value });
      }),
    );
  });

  it("rejects empty, unknown, non-numeric and foreign-path queries with a 422 naming dynamicQuery", () => {
    for (const bad of [
      "",
      "   ",
      "colour=red",
      "assetTypeId=1.5",
      "exchangeId=-1",
      "/api/v1/feeds/news?searchText=x",
      "searchText=",
    ]) {
      try {
        parseDynamicQuery(bad);
        expect.unreachable(`accepted ${JSON.stringify(bad)}`);
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).code).toBe("ValidationFailed");
        expect((error as AppError).problems?.[0]?.field).toBe("dynamicQuery");
      }
    }
  });

  it("filters by asset type case-insensitively and by ids exactly", () => {
    const btc = {
      instrumentId: 100000,
      symbol: "BTC",
      displayName: "Bitcoin",
      assetType: "Crypto",
      assetTypeId: 10,
      assetTypeSubCategoryId: 1001,
      exchangeId: 8,
      hasExpirationDate: false,
      avatar: { small: "", medium: "", large: "" },
      allowedLeverages: [1],
      minAmount: 10,
      updated: "2026-01-01T00:00:00.000Z",
    };
    expect(matches({ assetType: "crypto" }, btc)).toBe(true);
    expect(matches({ assetType: "Stocks" }, btc)).toBe(false);
    expect(matches({ assetTypeId: 10, exchangeId: 8 }, btc)).toBe(true);
    expect(matches({ assetTypeId: 10, exchangeId: 7 }, btc)).toBe(false);
    expect(matches({ searchText: "anything" }, btc)).toBe(true);
  });
});

describe("watchlist limits configuration", () => {
  it("defaults to 10 watchlists and 1000 items, and reads the environment", () => {
    expect(loadConfig({}).watchlistLimits).toEqual({ maxWatchlists: 10, maxItemsPerWatchlist: 1000 });
    expect(loadConfig({ WATCHLIST_MAX_WATCHLISTS: "25", WATCHLIST_MAX_ITEMS: "50" }).watchlistLimits).toEqual({
      maxWatchlists: 25,
      maxItemsPerWatchlist: 50,
    });
  });

  it("fails fast, naming the variable, on a value that is not a whole number in range", () => {
    for (const [name, value] of [
      ["WATCHLIST_MAX_WATCHLISTS", "0"],
      ["WATCHLIST_MAX_WATCHLISTS", "ten"],
      ["WATCHLIST_MAX_ITEMS", "1.5"],
      ["WATCHLIST_MAX_ITEMS", "100001"],
    ]) {
      expect(() => loadConfig({ [name!]: value! })).toThrow(ConfigError);
      expect(() => loadConfig({ [name!]: value! })).toThrow(name!);
    }
  });
});
