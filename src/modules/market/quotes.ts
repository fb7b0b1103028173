import type { PricedInstrument, Quote } from "../../core/market.js";
import type { Deps } from "../context.js";
import { ASSET_CLASSES } from "./catalog.js";
import { findInstrumentDetails, type InstrumentDetail, listInstruments } from "./find-instruments.js";
import { ensureInstrumentCatalog } from "./seed-catalog.js";

const factorByAssetType = new Map<number, number>(
  Object.values(ASSET_CLASSES).map((c) => [c.assetTypeId, c.volatility]),
);

export const toPriced = (i: InstrumentDetail): PricedInstrument => ({
  instrumentId: i.instrumentId,
  priceSeed: i.priceSeed,
  precision: i.precision,
  volatilityFactor: factorByAssetType.get(i.assetTypeId) ?? 1,
  exchangeId: i.exchangeId,
});

/**
 * Current quotes of the given instruments; an instrument the engine has not priced yet is
 * loaded from the catalog first. Unknown ids are absent from the map.
 */
export async function currentQuotes(deps: Deps, ids: readonly number[]): Promise<Map<number, Quote>> {
  const missing = ids.filter((id) => !deps.market.has(id));
  if (missing.length > 0) {
    const found = await findInstrumentDetails(deps, missing);
    deps.market.register([...found.values()].map(toPriced));
  }
  const out = new Map<number, Quote>();
  for (const id of ids) {
    const quote = deps.market.quote(id);
    if (quote) out.set(id, quote);
  }
  return out;
}

/** Ensures the catalog, prices every instrument and starts the tick timer (`serve`). */
export async function startMarket(deps: Deps): Promise<void> {
  await ensureInstrumentCatalog(deps);
  deps.market.register((await listInstruments(deps)).map(toPriced));
  deps.market.start();
}
