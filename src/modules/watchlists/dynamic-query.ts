import { invalid } from "../../core/errors.js";
import type { Deps } from "../context.js";
import { type Instrument, searchInstruments } from "../market/find-instruments.js";

/**
 * A dynamic watchlist names a market-data query; its items are the instruments the query
 * matches at read time. The query is the market-data search (`/api/v1/market-data/search`)
 * with optional filters over the catalog. See docs/decisions/0063-dynamic-watchlists.md.
 */
export interface DynamicQuery {
  searchText?: string;
  assetType?: string;
  assetTypeId?: number;
  assetTypeSubCategoryId?: number;
  exchangeId?: number;
}

export const DYNAMIC_QUERY_PATH = "/api/v1/market-data/search";
/** Enough for the whole catalog: filters are applied to the search result in memory. */
const CATALOG_SCAN_LIMIT = 100_000;
const INTEGER_KEYS = ["assetTypeId", "assetTypeSubCategoryId", "exchangeId"] as const;
const KEYS = ["searchText", "assetType", ...INTEGER_KEYS] as const;

const invalidQuery = (problem: string) => invalid("dynamicQuery", problem);

/**
 * Accepts `searchText=tech&assetType=Stocks`, the same after `?`, or a URL whose path is the
 * market-data search (relative or absolute). Parameter names are case-insensitive. The schema
 * bounds the length; the rest is checked here.
 */
export function parseDynamicQuery(text: string): DynamicQuery {
  const trimmed = text.trim();
  if (trimmed === "") throw invalidQuery("is required when {type} is Dynamic");
  let params: URLSearchParams;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) || trimmed.startsWith("/")) {
    let url: URL;
    try {
      url = new URL(trimmed, "http://localhost");
    } catch {
      throw invalidQuery("must be a query string or a URL; this is neither");
    }
    if (url.pathname.replace(/\/+$/, "").toLowerCase() !== DYNAMIC_QUERY_PATH) {
      throw invalidQuery(`must name ${DYNAMIC_QUERY_PATH}; got the path ${JSON.stringify(url.pathname)}`);
    }
    params = url.searchParams;
  } else {
    params = new URLSearchParams(trimmed.startsWith("?") ? trimmed.slice(1) : trimmed);
  }

  const query: DynamicQuery = {};
  for (const [rawKey, rawValue] of params) {
    const key = KEYS.find((k) => k.toLowerCase() === rawKey.toLowerCase());
    if (!key) {
      throw invalidQuery(`must use only the parameters ${KEYS.join(", ")}; got ${JSON.stringify(rawKey)}`);
    }
    const value = rawValue.trim();
    if (key === "searchText" || key === "assetType") {
      if (value === "") throw invalidQuery(`must give ${key} a value`);
      query[key] = value;
    } else {
      if (!/^\d{1,9}$/.test(value)) throw invalidQuery(`must give ${key} a whole number; got ${JSON.stringify(value)}`);
      query[key] = Number(value);
    }
  }
  if (Object.keys(query).length === 0) {
    throw invalidQuery(`must set at least one of ${KEYS.join(", ")}`);
  }
  return query;
}

/** The canonical URL stored and shown as `dynamicUrl`: fixed parameter order, one spelling. */
export function dynamicUrlOf(query: DynamicQuery): string {
  const params = new URLSearchParams();
  for (const key of KEYS) {
    const value = query[key];
    if (value !== undefined) params.set(key, String(value));
  }
  return `${DYNAMIC_QUERY_PATH}?${params.toString()}`;
}

export function matches(query: DynamicQuery, i: Instrument): boolean {
  if (query.assetType !== undefined && i.assetType.toLowerCase() !== query.assetType.toLowerCase()) return false;
  if (query.assetTypeId !== undefined && i.assetTypeId !== query.assetTypeId) return false;
  if (query.assetTypeSubCategoryId !== undefined && i.assetTypeSubCategoryId !== query.assetTypeSubCategoryId) {
    return false;
  }
  if (query.exchangeId !== undefined && i.exchangeId !== query.exchangeId) return false;
  return true;
}

/** Runs the query over the catalog now: at most `limit` instruments, in the search's order. */
export async function runDynamicQuery(deps: Deps, dynamicUrl: string, limit: number): Promise<Instrument[]> {
  const query = parseDynamicQuery(dynamicUrl);
  const filtered = Object.keys(query).some((k) => k !== "searchText");
  // Filters apply after the search, so a filtered query searches the whole catalog first.
  const found = await searchInstruments(deps, query.searchText ?? "", filtered ? CATALOG_SCAN_LIMIT : limit);
  return found.filter((i) => matches(query, i)).slice(0, limit);
}
