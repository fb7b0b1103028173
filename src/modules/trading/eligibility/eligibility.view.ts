import type { Deps } from "../../context.js";
import { isMarketOpen } from "../../market/hours/market-open.js";
import type { EligibilityResult } from "./check-eligibility.js";

export const toEligibility = (deps: Pick<Deps, "marketHours" | "clock">, r: EligibilityResult) => ({
  currency: r.currency,
  eligibilities: r.eligibilities.map(({ instrument, maxUnitsPerOrder, leverageConfigs }) => {
    const open = isMarketOpen(deps, instrument);
    return {
      instrumentId: instrument.instrumentId,
      symbol: instrument.symbol,
      minPositionExposure: instrument.minAmount,
      maxUnitsPerOrder,
      allowOpenPosition: open,
      allowClosePosition: open,
      allowPartialClosePosition: true,
      // Market-if-touched (entry) orders rest until their trigger (decisions 0124, 0131); no exit orders.
      allowMitOrders: true,
      allowEntryOrders: true,
      allowExitOrders: false,
      allowTrailingStopLoss: true,
      requiresW8Ben: null,
      unitsQuantityType: "FractionalUnits",
      orderFillBehaviorType: "BestEffort",
      allowedOrderQuantityType: "Both",
      tradeUnitType: "Units",
      initialMarginInAssetCurrency: null,
      stopLossMarginInAssetCurrency: null,
      additionalBufferPercent: null,
      leverageConfigs,
    };
  }),
  notFoundInstrumentIds: r.notFoundInstrumentIds,
  notFoundSymbols: r.notFoundSymbols,
});
