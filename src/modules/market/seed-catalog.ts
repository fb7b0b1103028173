import { isoNow } from "../../core/clock.js";
import type { Deps } from "../context.js";
import { ASSET_CLASSES, avatarUrls, CATALOG, EXCHANGES, SUB_CATEGORIES } from "./catalog.js";
import { marketRepository } from "./market.repository.js";

/**
 * Idempotent: inserts every catalog instrument that is missing and leaves the rest alone.
 * The catalog is reference data, so `serve` ensures it whatever the seed mode, and every test
 * harness has it. Returns how many instruments were added.
 */
export async function ensureInstrumentCatalog(deps: Deps): Promise<number> {
  const repo = marketRepository(deps.db.kysely);
  const existing = await repo.existingIds();
  const updated = isoNow(deps.clock);
  const missing = CATALOG.filter((e) => !existing.has(e.instrumentId)).map((e) => {
    const cls = ASSET_CLASSES[e.assetClass];
    const avatar = avatarUrls(e.instrumentId);
    return {
      instrumentId: e.instrumentId,
      symbol: e.symbol,
      symbolLower: e.symbol.toLowerCase(),
      displayName: e.displayName,
      displayNameLower: e.displayName.toLowerCase(),
      assetType: cls.assetType,
      assetTypeId: cls.assetTypeId,
      assetTypeSubCategoryId: SUB_CATEGORIES[e.subCategory],
      exchangeId: EXCHANGES[e.exchange],
      hasExpirationDate: e.hasExpirationDate ? 1 : 0,
      avatarSmall: avatar.small,
      avatarMedium: avatar.medium,
      avatarLarge: avatar.large,
      allowedLeverages: JSON.stringify(cls.allowedLeverages),
      minAmountCents: cls.minAmount * 100,
      priceSeed: e.price,
      precision: e.precision,
      updated,
    };
  });
  try {
    await repo.insertMany(missing);
  } catch (error) {
    // Two processes seeding at once: the other one won; the catalog is complete either way.
    if ((await repo.existingIds()).size < CATALOG.length) throw error;
  }
  return missing.length;
}
