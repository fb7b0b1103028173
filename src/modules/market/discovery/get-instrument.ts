import { requireUser } from "../../../core/access.js";
import { AppError, notFound } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { findInstrumentBySymbol, findInstrumentDetails } from "../find-instruments.js";
import { MARKET_DATA_SCOPES } from "../market-data.js";
import { currentQuotes } from "../quotes.js";
import { CLOSE_CANDLES, closingPrices } from "../reference-data/closing-prices.js";
import { parseFieldList, project, projection } from "./discover-query.js";
import { type InstrumentField, type InstrumentRecord, toInstrumentRecord } from "./instrument-fields.js";
import { isShortener, SHORTENER_NAMES, SHORTENERS } from "./shorteners.js";

/**
 * One instrument by its symbol (any case), projected onto `fields` and, when a shortener is named,
 * onto that preset's fields: `fields` must then be a subset of them (400 otherwise, as an unknown
 * shortener is). 404 when no instrument has the symbol.
 */
export async function getInstrument(
  ctx: Ctx,
  symbol: string,
  options: { fields?: string | undefined; shortener?: string | undefined },
): Promise<InstrumentRecord> {
  requireUser(ctx.actor, MARKET_DATA_SCOPES);
  let allowed: readonly InstrumentField[] | undefined;
  if (options.shortener !== undefined) {
    if (!isShortener(options.shortener)) {
      throw new AppError("BadRequest", `The shortener ${JSON.stringify(options.shortener)} is not an allowed one.`, [
        { field: "shortener", problem: `must be one of ${SHORTENER_NAMES.join(", ")}` },
      ]);
    }
    allowed = SHORTENERS[options.shortener];
  }
  let fields = allowed;
  if (options.fields !== undefined) {
    const asked = projection(parseFieldList("fields", options.fields));
    const outside = allowed ? asked.filter((f) => !allowed.includes(f)) : [];
    if (outside.length > 0) {
      throw new AppError("BadRequest", `The query parameter fields names fields outside the shortener.`, [
        {
          field: "fields",
          problem: `must name fields of the shortener only (${allowed!.join(", ")}); got ${outside.join(", ")}`,
        },
      ]);
    }
    fields = asked;
  }
  const found = await findInstrumentBySymbol(ctx, symbol);
  if (!found) throw notFound(`Instrument ${JSON.stringify(symbol)}`);
  const instrument = (await findInstrumentDetails(ctx, [found.instrumentId])).get(found.instrumentId)!;
  const quote = (await currentQuotes(ctx, [instrument.instrumentId])).get(instrument.instrumentId);
  const closes = closingPrices(
    ctx.market.candles(instrument.instrumentId, "OneDay", CLOSE_CANDLES, "asc"),
    ctx.clock.now(),
  );
  return project(toInstrumentRecord({ instrument, quote, closes }), fields);
}
