import type { Static } from "typebox";
import type { Candle, CandleInterval, Quote } from "../../core/market.js";
import { avatarColor, avatarUrls, EXCHANGES, MARKET_APPLICATION, marketAssetType } from "./catalog.js";
import type { Instrument, InstrumentDetail } from "./find-instruments.js";
import type { Market } from "./market.schemas.js";

/** The spec's "Market" resource (inside tags, post metadata and watchlist items). */
export type MarketView = Static<typeof Market>;

export function toMarket(i: Instrument): MarketView {
  return {
    id: String(i.instrumentId),
    symbolName: i.symbol,
    displayName: i.displayName,
    updated: i.updated,
    assetType: marketAssetType(i),
    internalId: i.instrumentId,
    avatar: {
      small: i.avatar.small,
      medium: i.avatar.medium,
      large: i.avatar.large,
      svg: { url: avatarUrls(i.instrumentId).svg, backgroundColor: avatarColor(i.symbol), textColor: "#FFFFFF" },
    },
    application: MARKET_APPLICATION,
    metadata: JSON.stringify({
      instrumentId: i.instrumentId,
      symbol: i.symbol,
      exchangeId: i.exchangeId,
      hasExpirationDate: i.hasExpirationDate,
    }),
    assetTypeId: i.assetTypeId,
    assetTypeSubCategoryId: i.assetTypeSubCategoryId,
  };
}

export const toRate = (q: Quote) => ({
  instrumentID: q.instrumentId,
  ask: q.ask,
  bid: q.bid,
  lastExecution: q.mid,
  conversionRateAsk: 1,
  conversionRateBid: 1,
  date: q.date,
  priceRateID: q.priceRateId,
});

const EXCHANGE_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(EXCHANGES).map(([name, id]) => [id, name]),
);

export const toInstrumentDisplayData = (i: InstrumentDetail) => {
  const color = avatarColor(i.symbol);
  const image = (size: number, uri: string) => ({
    instrumentID: i.instrumentId,
    width: size,
    height: size,
    uri,
    backgroundColor: color,
    textColor: "#FFFFFF",
  });
  return {
    instrumentID: i.instrumentId,
    instrumentDisplayName: i.displayName,
    instrumentTypeID: i.assetTypeId,
    exchangeID: i.exchangeId,
    symbolFull: i.symbol,
    priceSource: EXCHANGE_NAMES[i.exchangeId] ?? "simulated",
    hasExpirationDate: i.hasExpirationDate,
    isInternalInstrument: false,
    images: [image(35, i.avatar.small), image(50, i.avatar.medium), image(150, i.avatar.large)],
    allowedLeverages: i.allowedLeverages,
    minPositionAmount: i.minAmount,
  };
};

const SEARCH_FIELDS = [
  "displayname",
  "symbol",
  "instrumentTypeID",
  "instrumentType",
  "exchangeID",
  "isOpen",
  "isCurrentlyTradable",
  "isBuyEnabled",
  "isDelisted",
  "logo35x35",
  "logo50x50",
  "logo150x150",
  "currentRate",
] as const;

/** A search hit, projected onto `fields` (names compared case-insensitively; unknown ones ignored). */
export function toSearchItem(
  i: InstrumentDetail,
  quote: Quote | undefined,
  fields: string | undefined,
): { instrumentId: number } & Record<string, unknown> {
  const full: Record<string, unknown> = {
    displayname: i.displayName,
    symbol: i.symbol,
    instrumentTypeID: i.assetTypeId,
    instrumentType: i.assetType,
    exchangeID: i.exchangeId,
    // The simulated market never closes.
    isOpen: true,
    isCurrentlyTradable: true,
    isBuyEnabled: true,
    isDelisted: false,
    logo35x35: i.avatar.small,
    logo50x50: i.avatar.medium,
    logo150x150: i.avatar.large,
    ...(quote ? { currentRate: quote.mid } : {}),
  };
  const wanted = fields
    ?.split(",")
    .map((f) => f.trim().toLowerCase())
    .filter(Boolean);
  const keep =
    wanted && wanted.length > 0 ? SEARCH_FIELDS.filter((f) => wanted.includes(f.toLowerCase())) : SEARCH_FIELDS;
  const out: { instrumentId: number } & Record<string, unknown> = { instrumentId: i.instrumentId };
  for (const key of keep) if (key in full) out[key] = full[key];
  return out;
}

export function toCandles(result: { interval: CandleInterval; instrumentId: number; candles: Candle[] }) {
  const candles = result.candles.map((c) => ({ instrumentID: result.instrumentId, ...c }));
  const chronological = [...result.candles].sort((a, b) => a.fromDate.localeCompare(b.fromDate));
  const first = chronological[0];
  const last = chronological[chronological.length - 1];
  return {
    interval: result.interval,
    candles: [
      {
        instrumentId: result.instrumentId,
        candles,
        rangeOpen: first?.open ?? 0,
        rangeClose: last?.close ?? 0,
        rangeHigh: chronological.reduce((m, c) => Math.max(m, c.high), first?.high ?? 0),
        rangeLow: chronological.reduce((m, c) => Math.min(m, c.low), first?.low ?? 0),
        volume: chronological.reduce((sum, c) => sum + c.volume, 0),
      },
    ],
  };
}

/** A generated letter avatar: the symbol on the instrument's colour. */
export function avatarSvg(i: Instrument, size: number): string {
  const text = i.symbol.replace(/\..*$/, "").slice(0, 4);
  const font = Math.round(size * (text.length > 3 ? 0.28 : 0.36) * 10) / 10;
  const escaped = text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">` +
    `<rect width="${size}" height="${size}" rx="${size / 2}" fill="${avatarColor(i.symbol)}"/>` +
    `<text x="50%" y="50%" dy=".35em" text-anchor="middle" font-family="Arial,Helvetica,sans-serif" ` +
    `font-weight="700" font-size="${font}" fill="#FFFFFF">${escaped}</text></svg>`
  );
}
