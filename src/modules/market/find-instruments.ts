import type { Deps } from "../context.js";
import { type InstrumentRow, marketRepository } from "./market.repository.js";

/** The published catalog entry other modules code against (docs/market-contract.md). */
export interface Instrument {
  instrumentId: number;
  symbol: string;
  displayName: string;
  assetType: string;
  assetTypeId: number;
  assetTypeSubCategoryId: number;
  exchangeId: number;
  hasExpirationDate: boolean;
  avatar: { small: string; medium: string; large: string };
  allowedLeverages: number[];
  /** Smallest position amount, USD. */
  minAmount: number;
  updated: string;
}

/** The catalog entry plus what only the market and trading modules need. */
export interface InstrumentDetail extends Instrument {
  priceSeed: number;
  precision: number;
}

export function toInstrument(row: InstrumentRow): InstrumentDetail {
  return {
    instrumentId: row.instrumentId,
    symbol: row.symbol,
    displayName: row.displayName,
    assetType: row.assetType,
    assetTypeId: row.assetTypeId,
    assetTypeSubCategoryId: row.assetTypeSubCategoryId,
    exchangeId: row.exchangeId,
    hasExpirationDate: row.hasExpirationDate === 1,
    avatar: { small: row.avatarSmall, medium: row.avatarMedium, large: row.avatarLarge },
    allowedLeverages: JSON.parse(row.allowedLeverages) as number[],
    minAmount: row.minAmountCents / 100,
    updated: row.updated,
    priceSeed: Number(row.priceSeed),
    precision: row.precision,
  };
}

/** Looks up instruments by id; unknown ids are simply absent from the map. */
export async function findInstruments(deps: Deps, ids: readonly number[]): Promise<Map<number, Instrument>> {
  return findInstrumentDetails(deps, ids);
}

declare module "../context.js" {
  interface Deps {
    /**
     * Market: the catalog entries found so far, by id. Catalog rows never change once written (the
     * seed only adds missing ones), so an order does not pay a query to learn its instrument.
     * Unknown ids are asked again each time (a seed may add them).
     */
    readonly instrumentCache: Map<number, InstrumentDetail>;
  }
}

const INSTRUMENT_ID_MAX = 2_147_483_647;

export async function findInstrumentDetails(
  deps: Deps,
  ids: readonly number[],
): Promise<Map<number, InstrumentDetail>> {
  const known = deps.instrumentCache;
  const out = new Map<number, InstrumentDetail>();
  const missing: number[] = [];
  for (const id of new Set(ids)) {
    const hit = known.get(id);
    if (hit) out.set(id, hit);
    // Instrument ids are int32 columns: any other number names no instrument (and would make
    // PostgreSQL fail the whole query).
    else if (Number.isInteger(id) && id >= 1 && id <= INSTRUMENT_ID_MAX) missing.push(id);
  }
  if (missing.length > 0) {
    for (const row of await marketRepository(deps.db.kysely).byIds(missing)) {
      const instrument = toInstrument(row);
      known.set(instrument.instrumentId, instrument);
      out.set(instrument.instrumentId, instrument);
    }
  }
  return out;
}

/** Every instrument, by id (the engine and the catalog routes). */
export async function listInstruments(deps: Deps): Promise<InstrumentDetail[]> {
  return (await marketRepository(deps.db.kysely).all()).map(toInstrument);
}

/**
 * Case-insensitive search: symbol prefix or display-name substring; an exact symbol match
 * comes first, then by symbol. Empty text matches everything.
 */
export async function searchInstruments(deps: Deps, text: string, limit: number): Promise<Instrument[]> {
  const { rows } = await marketRepository(deps.db.kysely).search(text, Math.max(0, Math.floor(limit)));
  return rows.map(toInstrument);
}

/** The instrument whose symbol is `symbol`, in any case; undefined when none is. */
export async function findInstrumentBySymbol(deps: Deps, symbol: string): Promise<Instrument | undefined> {
  const wanted = symbol.trim().toLowerCase();
  if (!wanted) return undefined;
  const [first] = await searchInstruments(deps, wanted, 1);
  return first && first.symbol.toLowerCase() === wanted ? first : undefined;
}

export async function searchInstrumentsPage(
  deps: Deps,
  text: string,
  pageSize: number,
  pageNumber: number,
): Promise<{ items: InstrumentDetail[]; total: number }> {
  const { rows, total } = await marketRepository(deps.db.kysely).search(text, pageSize, (pageNumber - 1) * pageSize);
  return { items: rows.map(toInstrument), total };
}
