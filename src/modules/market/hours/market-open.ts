import { invalid } from "../../../core/errors.js";
import type { Deps } from "../../context.js";
import type { Instrument } from "../find-instruments.js";
import { exchangeName } from "./market-hours.js";

/** Whether the instrument's market trades now (deps.clock; MARKET_HOURS=always: always). */
export const isMarketOpen = (deps: Pick<Deps, "marketHours" | "clock">, instrument: Pick<Instrument, "exchangeId">) =>
  deps.marketHours.isOpen(instrument.exchangeId, deps.clock.now());

/**
 * Refuses a market order on a closed market, as upstream does: a market order executes now or
 * not at all (upstream queues only entry orders, `allowEntryOrders`); decision 0129.
 */
export function assertMarketOpen(
  deps: Pick<Deps, "marketHours" | "clock">,
  instrument: Pick<Instrument, "exchangeId" | "symbol">,
  field = "instrumentId",
): void {
  if (isMarketOpen(deps, instrument)) return;
  throw invalid(
    field,
    `must name an instrument whose market is open; the ${exchangeName(instrument.exchangeId)} market of ${instrument.symbol} is closed now`,
  );
}
