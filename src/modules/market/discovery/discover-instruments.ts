import { requireUser } from "../../../core/access.js";
import type { Ctx } from "../../context.js";
import { MARKET_DATA_SCOPES } from "../market-data.js";
import { pricedCatalog } from "../reference-data/get-closing-prices.js";
import { type DiscoverPage, parseDiscoverQuery, runDiscoverQuery } from "./discover-query.js";
import { toInstrumentRecord } from "./instrument-fields.js";

/** A page of the catalog, filtered, sorted and projected as the query says (decision 0135). */
export async function discoverInstruments(ctx: Ctx, query: Readonly<Record<string, unknown>>): Promise<DiscoverPage> {
  requireUser(ctx.actor, MARKET_DATA_SCOPES);
  const parsed = parseDiscoverQuery(query);
  const records = (await pricedCatalog(ctx)).map(toInstrumentRecord);
  return runDiscoverQuery(records, parsed);
}
