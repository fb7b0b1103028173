import { ASSET_CLASSES, EXCHANGES } from "../catalog.js";

/**
 * The reference lists behind the catalog's ids (decision 0133): exchanges, instrument types and
 * stock industries, and each instrument's company profile (industry, sector, market cap). They are
 * published facts about real listed companies, kept in code beside the catalog they describe.
 */

/** `exchangeID` → its description (upstream's exchanges list). */
export const EXCHANGE_DESCRIPTIONS: Readonly<Record<number, string>> = {
  [EXCHANGES.fx]: "FX",
  [EXCHANGES.commodity]: "Commodity",
  [EXCHANGES.indexCfd]: "CFD",
  [EXCHANGES.nasdaq]: "NASDAQ",
  [EXCHANGES.nyse]: "NYSE",
  [EXCHANGES.xetra]: "Xetra",
  [EXCHANGES.lse]: "London Stock Exchange",
  [EXCHANGES.crypto]: "Digital Currency",
};

/** `instrumentTypeID` → its description: the catalog's asset classes. */
export const INSTRUMENT_TYPE_DESCRIPTIONS: Readonly<Record<number, string>> = Object.fromEntries(
  Object.values(ASSET_CLASSES).map((c) => [c.assetTypeId, c.assetType]),
);

/** Stock industries (the sector level, upstream's `stocksIndustries`): id → name. */
export const STOCK_INDUSTRIES = {
  1: "Basic Materials",
  2: "Conglomerates",
  3: "Consumer Goods",
  4: "Financial",
  5: "Healthcare",
  6: "Industrial Goods",
  7: "Services",
  8: "Technology",
  9: "Utilities",
} as const satisfies Record<number, string>;

export type StockIndustryId = keyof typeof STOCK_INDUSTRIES;

/** The finer industry within a sector (`industryNameId`): id → name. */
export const INDUSTRY_NAMES = {
  101: "Consumer Electronics",
  102: "Software - Infrastructure",
  103: "Semiconductors",
  104: "Internet Content & Information",
  105: "Internet Retail",
  106: "Auto Manufacturers",
  107: "Entertainment",
  108: "Banks - Diversified",
  109: "Credit Services",
  110: "Beverages - Non-Alcoholic",
  111: "Drug Manufacturers - General",
  112: "Aerospace & Defense",
  113: "Software - Application",
} as const satisfies Record<number, string>;

export type IndustryNameId = keyof typeof INDUSTRY_NAMES;

export interface InstrumentProfile {
  /** The stock industry (sector level), for stocks only. */
  industryId?: StockIndustryId;
  /** The finer industry, for stocks only. */
  industryNameId?: IndustryNameId;
  /** Market capitalisation in US dollars (stocks and coins; mid-2024 figures, rounded). */
  marketCap: number;
}

/**
 * Company profiles by instrument id. Market caps are the publicly reported capitalisations at the
 * catalog's seed prices (mid-2024), in US dollars, rounded to three significant figures; London and
 * Frankfurt listings converted at that date's exchange rates.
 */
export const INSTRUMENT_PROFILES: Readonly<Record<number, InstrumentProfile>> = {
  1001: { industryId: 3, industryNameId: 101, marketCap: 2_910_000_000_000 }, // AAPL
  1002: { industryId: 3, industryNameId: 106, marketCap: 557_000_000_000 }, // TSLA
  1003: { industryId: 8, industryNameId: 102, marketCap: 3_140_000_000_000 }, // MSFT
  1004: { industryId: 7, industryNameId: 105, marketCap: 1_930_000_000_000 }, // AMZN
  1005: { industryId: 8, industryNameId: 104, marketCap: 2_130_000_000_000 }, // GOOG
  1006: { industryId: 8, industryNameId: 104, marketCap: 1_210_000_000_000 }, // META
  1007: { industryId: 8, industryNameId: 103, marketCap: 2_260_000_000_000 }, // NVDA
  1008: { industryId: 7, industryNameId: 107, marketCap: 263_000_000_000 }, // NFLX
  1009: { industryId: 4, industryNameId: 108, marketCap: 565_000_000_000 }, // JPM
  1010: { industryId: 3, industryNameId: 110, marketCap: 266_000_000_000 }, // KO
  1011: { industryId: 7, industryNameId: 107, marketCap: 205_000_000_000 }, // DIS
  1012: { industryId: 4, industryNameId: 109, marketCap: 556_000_000_000 }, // V
  1013: { industryId: 5, industryNameId: 111, marketCap: 358_000_000_000 }, // JNJ
  1014: { industryId: 6, industryNameId: 112, marketCap: 112_000_000_000 }, // BA
  1015: { industryId: 8, industryNameId: 103, marketCap: 257_000_000_000 }, // AMD
  2001: { industryId: 4, industryNameId: 108, marketCap: 39_400_000_000 }, // BARC.L
  2002: { industryId: 4, industryNameId: 108, marketCap: 163_000_000_000 }, // HSBA.L
  2003: { industryId: 8, industryNameId: 113, marketCap: 221_000_000_000 }, // SAP.DE
  2004: { industryId: 3, industryNameId: 106, marketCap: 65_300_000_000 }, // VOW3.DE
  100000: { marketCap: 1_320_000_000_000 }, // BTC
  100001: { marketCap: 422_000_000_000 }, // ETH
  100003: { marketCap: 28_900_000_000 }, // XRP
  100005: { marketCap: 6_280_000_000 }, // LTC
  100017: { marketCap: 16_200_000_000 }, // ADA
  100043: { marketCap: 23_300_000_000 }, // DOGE
  100063: { marketCap: 77_100_000_000 }, // SOL
};

/** The listed entries of `table` whose ids are in `ids` (all of them when `ids` is empty or absent), by id. */
export function pick(
  table: Readonly<Record<number, string>>,
  ids: readonly number[] | undefined,
): { id: number; name: string }[] {
  const wanted = ids && ids.length > 0 ? new Set(ids) : undefined;
  return Object.entries(table)
    .map(([id, name]) => ({ id: Number(id), name }))
    .filter((e) => !wanted || wanted.has(e.id))
    .sort((a, b) => a.id - b.id);
}
