/**
 * The seeded instrument universe. Ids follow upstream's numbering where its examples show one
 * (currencies from 1, commodities 17+, indices 27+, US stocks 1001+ with AAPL = 1001,
 * crypto 100000+ with BTC = 100000); asset type ids are upstream's instrumentTypeID values.
 * See docs/decisions/0040-instrument-catalog.md.
 */
/**
 * Upstream's `Market.assetType` values: the asset class of the Market resource (in tags, post
 * metadata), a vocabulary apart from the instrument type names of `assetType` below, which the
 * search and the dynamic watchlists use (decision 0088).
 */
export const MARKET_ASSET_TYPES = [
  "Stocks",
  "Bonds",
  "ETF",
  "Index",
  "Warrants",
  "Options",
  "Futures",
  "CFD",
  "TRS",
  "FOREX",
  "CommodityMetals",
  "CommodityEnergyAgriculture",
  "CryptoCoin",
  "NFT",
] as const;

export type MarketAssetType = (typeof MARKET_ASSET_TYPES)[number];

/**
 * `Market.application`, the application that owns a market reference: one of upstream's `eToro`,
 * `Delta`, `Gatsby`. Ours is the trading platform's own instrument catalog, which upstream calls
 * `eToro` (decision 0088).
 */
export const MARKET_APPLICATION = "eToro";

export interface AssetClass {
  assetType: string;
  assetTypeId: number;
  /** The class's `Market.assetType`; commodities depend on their sub-category (marketAssetType). */
  marketAssetType: MarketAssetType;
  allowedLeverages: number[];
  /** USD, whole dollars. */
  minAmount: number;
  /** Relative volatility of the class, multiplied by the engine's configured volatility. */
  volatility: number;
}

export const ASSET_CLASSES = {
  currencies: {
    assetType: "Currencies",
    assetTypeId: 1,
    marketAssetType: "FOREX",
    allowedLeverages: [1, 2, 5, 10, 20, 30],
    minAmount: 25,
    volatility: 0.3,
  },
  commodities: {
    assetType: "Commodities",
    assetTypeId: 2,
    // Metals are CommodityMetals: see marketAssetType.
    marketAssetType: "CommodityEnergyAgriculture",
    allowedLeverages: [1, 2, 5, 10],
    minAmount: 25,
    volatility: 0.8,
  },
  indices: {
    assetType: "Indices",
    assetTypeId: 4,
    marketAssetType: "Index",
    allowedLeverages: [1, 2, 5, 10, 20],
    minAmount: 25,
    volatility: 0.6,
  },
  stocks: {
    assetType: "Stocks",
    assetTypeId: 5,
    marketAssetType: "Stocks",
    allowedLeverages: [1, 2, 5],
    minAmount: 10,
    volatility: 1,
  },
  etf: {
    assetType: "ETF",
    assetTypeId: 6,
    marketAssetType: "ETF",
    allowedLeverages: [1, 2, 5],
    minAmount: 10,
    volatility: 0.7,
  },
  crypto: {
    assetType: "Crypto",
    assetTypeId: 10,
    marketAssetType: "CryptoCoin",
    allowedLeverages: [1, 2],
    minAmount: 10,
    volatility: 2.5,
  },
} as const satisfies Record<string, AssetClass>;

export type AssetClassName = keyof typeof ASSET_CLASSES;

/** Exchange ids as upstream's exchanges list numbers them. */
export const EXCHANGES = {
  fx: 1,
  commodity: 2,
  indexCfd: 3,
  nasdaq: 4,
  nyse: 5,
  xetra: 6,
  lse: 7,
  crypto: 8,
} as const;

/** Sub-categories within an asset type (upstream's assetTypeSubCategoryId is not enumerated). */
export const SUB_CATEGORIES = {
  fxMajor: 101,
  fxMinor: 102,
  energy: 201,
  metals: 202,
  agriculture: 203,
  usIndex: 401,
  europeIndex: 402,
  asiaIndex: 403,
  technology: 501,
  financials: 502,
  consumer: 503,
  healthcare: 504,
  industrials: 505,
  communication: 506,
  broadEtf: 601,
  sectorEtf: 602,
  commodityEtf: 603,
  coin: 1001,
  token: 1002,
} as const;

const MARKET_ASSET_TYPE_BY_TYPE_ID = new Map<number, MarketAssetType>(
  Object.values(ASSET_CLASSES).map((c) => [c.assetTypeId, c.marketAssetType]),
);

/**
 * An instrument's `Market.assetType`. Upstream splits commodities into metals and
 * energy/agriculture; an instrument type the catalog does not know (a row written by hand) is
 * reported as a CFD, the contract every simulated instrument here is.
 */
export function marketAssetType(i: { assetTypeId: number; assetTypeSubCategoryId: number }): MarketAssetType {
  if (i.assetTypeId === ASSET_CLASSES.commodities.assetTypeId && i.assetTypeSubCategoryId === SUB_CATEGORIES.metals)
    return "CommodityMetals";
  return MARKET_ASSET_TYPE_BY_TYPE_ID.get(i.assetTypeId) ?? "CFD";
}

export interface CatalogEntry {
  instrumentId: number;
  symbol: string;
  displayName: string;
  assetClass: AssetClassName;
  subCategory: keyof typeof SUB_CATEGORIES;
  exchange: keyof typeof EXCHANGES;
  /** A realistic opening mid price; the engine's walk starts here. */
  price: number;
  /** Decimal places of the quote. */
  precision: number;
  hasExpirationDate?: boolean;
}

const fx = (instrumentId: number, symbol: string, displayName: string, price: number, minor = false): CatalogEntry => ({
  instrumentId,
  symbol,
  displayName,
  assetClass: "currencies",
  subCategory: minor ? "fxMinor" : "fxMajor",
  exchange: "fx",
  price,
  precision: symbol.endsWith("JPY") ? 3 : 5,
});

const stock = (
  instrumentId: number,
  symbol: string,
  displayName: string,
  price: number,
  subCategory: CatalogEntry["subCategory"],
  exchange: CatalogEntry["exchange"] = "nasdaq",
): CatalogEntry => ({
  instrumentId,
  symbol,
  displayName,
  assetClass: "stocks",
  subCategory,
  exchange,
  price,
  precision: 2,
});

const coin = (
  instrumentId: number,
  symbol: string,
  displayName: string,
  price: number,
  precision = 2,
): CatalogEntry => ({
  instrumentId,
  symbol,
  displayName,
  assetClass: "crypto",
  subCategory: symbol === "BTC" || symbol === "ETH" || symbol === "LTC" ? "coin" : "token",
  exchange: "crypto",
  price,
  precision,
});

export const CATALOG: readonly CatalogEntry[] = [
  fx(1, "EURUSD", "EUR/USD", 1.0852),
  fx(2, "GBPUSD", "GBP/USD", 1.2714),
  fx(3, "NZDUSD", "NZD/USD", 0.6021),
  fx(4, "USDCAD", "USD/CAD", 1.3562),
  fx(5, "USDJPY", "USD/JPY", 151.42),
  fx(6, "AUDUSD", "AUD/USD", 0.6588),
  fx(7, "USDCHF", "USD/CHF", 0.8823),
  fx(8, "EURGBP", "EUR/GBP", 0.8536, true),
  fx(9, "EURJPY", "EUR/JPY", 164.31, true),
  {
    instrumentId: 17,
    symbol: "OIL",
    displayName: "Crude Oil",
    assetClass: "commodities",
    subCategory: "energy",
    exchange: "commodity",
    price: 78.45,
    precision: 2,
    hasExpirationDate: true,
  },
  {
    instrumentId: 18,
    symbol: "GOLD",
    displayName: "Gold",
    assetClass: "commodities",
    subCategory: "metals",
    exchange: "commodity",
    price: 2345.6,
    precision: 2,
  },
  {
    instrumentId: 19,
    symbol: "SILVER",
    displayName: "Silver",
    assetClass: "commodities",
    subCategory: "metals",
    exchange: "commodity",
    price: 27.85,
    precision: 3,
  },
  {
    instrumentId: 22,
    symbol: "NATGAS",
    displayName: "Natural Gas",
    assetClass: "commodities",
    subCategory: "energy",
    exchange: "commodity",
    price: 2.415,
    precision: 3,
    hasExpirationDate: true,
  },
  {
    instrumentId: 24,
    symbol: "COPPER",
    displayName: "Copper",
    assetClass: "commodities",
    subCategory: "metals",
    exchange: "commodity",
    price: 4.512,
    precision: 3,
  },
  {
    instrumentId: 26,
    symbol: "WHEAT",
    displayName: "Wheat",
    assetClass: "commodities",
    subCategory: "agriculture",
    exchange: "commodity",
    price: 598.25,
    precision: 2,
    hasExpirationDate: true,
  },
  {
    instrumentId: 27,
    symbol: "SPX500",
    displayName: "US 500",
    assetClass: "indices",
    subCategory: "usIndex",
    exchange: "indexCfd",
    price: 5241.5,
    precision: 2,
  },
  {
    instrumentId: 28,
    symbol: "NSDQ100",
    displayName: "US Tech 100",
    assetClass: "indices",
    subCategory: "usIndex",
    exchange: "indexCfd",
    price: 18254.7,
    precision: 2,
  },
  {
    instrumentId: 29,
    symbol: "DJ30",
    displayName: "Wall Street 30",
    assetClass: "indices",
    subCategory: "usIndex",
    exchange: "indexCfd",
    price: 39512.0,
    precision: 2,
  },
  {
    instrumentId: 32,
    symbol: "GER40",
    displayName: "Germany 40",
    assetClass: "indices",
    subCategory: "europeIndex",
    exchange: "indexCfd",
    price: 18492.3,
    precision: 2,
  },
  {
    instrumentId: 30,
    symbol: "UK100",
    displayName: "UK 100",
    assetClass: "indices",
    subCategory: "europeIndex",
    exchange: "indexCfd",
    price: 8144.1,
    precision: 2,
  },
  {
    instrumentId: 33,
    symbol: "JPN225",
    displayName: "Japan 225",
    assetClass: "indices",
    subCategory: "asiaIndex",
    exchange: "indexCfd",
    price: 38460.0,
    precision: 2,
  },
  stock(1001, "AAPL", "Apple", 189.84, "technology"),
  stock(1002, "TSLA", "Tesla", 174.6, "consumer"),
  stock(1003, "MSFT", "Microsoft", 421.9, "technology"),
  stock(1004, "AMZN", "Amazon.com", 185.07, "consumer"),
  stock(1005, "GOOG", "Alphabet", 171.93, "communication"),
  stock(1006, "META", "Meta Platforms", 476.2, "communication"),
  stock(1007, "NVDA", "NVIDIA", 903.56, "technology"),
  stock(1008, "NFLX", "Netflix", 610.52, "communication"),
  stock(1009, "JPM", "JPMorgan Chase", 196.62, "financials", "nyse"),
  stock(1010, "KO", "Coca-Cola", 61.74, "consumer", "nyse"),
  stock(1011, "DIS", "Walt Disney", 112.4, "communication", "nyse"),
  stock(1012, "V", "Visa", 276.3, "financials", "nyse"),
  stock(1013, "JNJ", "Johnson & Johnson", 148.9, "healthcare", "nyse"),
  stock(1014, "BA", "Boeing", 182.15, "industrials", "nyse"),
  stock(1015, "AMD", "Advanced Micro Devices", 158.77, "technology"),
  stock(2001, "BARC.L", "Barclays", 208.35, "financials", "lse"),
  stock(2002, "HSBA.L", "HSBC Holdings", 689.4, "financials", "lse"),
  stock(2003, "SAP.DE", "SAP", 176.52, "technology", "xetra"),
  stock(2004, "VOW3.DE", "Volkswagen", 118.3, "consumer", "xetra"),
  {
    instrumentId: 3001,
    symbol: "SPY",
    displayName: "SPDR S&P 500 ETF Trust",
    assetClass: "etf",
    subCategory: "broadEtf",
    exchange: "nyse",
    price: 522.16,
    precision: 2,
  },
  {
    instrumentId: 3002,
    symbol: "QQQ",
    displayName: "Invesco QQQ Trust",
    assetClass: "etf",
    subCategory: "broadEtf",
    exchange: "nasdaq",
    price: 444.08,
    precision: 2,
  },
  {
    instrumentId: 3003,
    symbol: "VTI",
    displayName: "Vanguard Total Stock Market ETF",
    assetClass: "etf",
    subCategory: "broadEtf",
    exchange: "nyse",
    price: 258.4,
    precision: 2,
  },
  {
    instrumentId: 3004,
    symbol: "GLD",
    displayName: "SPDR Gold Shares",
    assetClass: "etf",
    subCategory: "commodityEtf",
    exchange: "nyse",
    price: 216.73,
    precision: 2,
  },
  {
    instrumentId: 3005,
    symbol: "XLF",
    displayName: "Financial Select Sector SPDR Fund",
    assetClass: "etf",
    subCategory: "sectorEtf",
    exchange: "nyse",
    price: 41.28,
    precision: 2,
  },
  {
    instrumentId: 3006,
    symbol: "ARKK",
    displayName: "ARK Innovation ETF",
    assetClass: "etf",
    subCategory: "sectorEtf",
    exchange: "nyse",
    price: 48.9,
    precision: 2,
  },
  coin(100000, "BTC", "Bitcoin", 67250.0),
  coin(100001, "ETH", "Ethereum", 3512.4),
  coin(100003, "XRP", "Ripple", 0.5234, 4),
  coin(100005, "LTC", "Litecoin", 84.12),
  coin(100017, "ADA", "Cardano", 0.4587, 4),
  coin(100043, "DOGE", "Dogecoin", 0.1612, 5),
  coin(100063, "SOL", "Solana", 172.35),
];

/** A stable, readable colour per symbol for the generated avatar. */
export function avatarColor(symbol: string): string {
  let hash = 0;
  for (const ch of symbol) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const palette = ["#1E88E5", "#43A047", "#E53935", "#8E24AA", "#FB8C00", "#00897B", "#3949AB", "#6D4C41"];
  return palette[hash % palette.length]!;
}

/** Avatar image addresses; the service itself serves them (GET /api/v1/market-data/avatars/...). */
export function avatarUrls(instrumentId: number): { small: string; medium: string; large: string; svg: string } {
  const base = `/api/v1/market-data/avatars/${instrumentId}`;
  return {
    small: `${base}/35x35.svg`,
    medium: `${base}/50x50.svg`,
    large: `${base}/150x150.svg`,
    svg: `${base}/avatar.svg`,
  };
}
