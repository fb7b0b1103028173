import { requireUser } from "../../../core/access.js";
import type { Ctx } from "../../context.js";
import { MARKET_DATA_SCOPES } from "../market-data.js";
import { EXCHANGE_DESCRIPTIONS, INSTRUMENT_TYPE_DESCRIPTIONS, pick, STOCK_INDUSTRIES } from "./reference-data.js";

/** The exchanges named by `ids` (every one when none is named), by id; unknown ids are skipped. */
export function listExchanges(ctx: Ctx, ids: readonly number[] | undefined) {
  requireUser(ctx.actor, MARKET_DATA_SCOPES);
  return pick(EXCHANGE_DESCRIPTIONS, ids);
}

/** The instrument types (asset classes) named by `ids`, or all, by id. */
export function listInstrumentTypes(ctx: Ctx, ids: readonly number[] | undefined) {
  requireUser(ctx.actor, MARKET_DATA_SCOPES);
  return pick(INSTRUMENT_TYPE_DESCRIPTIONS, ids);
}

/** The stock industries named by `ids`, or all, by id. */
export function listStocksIndustries(ctx: Ctx, ids: readonly number[] | undefined) {
  requireUser(ctx.actor, MARKET_DATA_SCOPES);
  return pick(STOCK_INDUSTRIES, ids);
}
