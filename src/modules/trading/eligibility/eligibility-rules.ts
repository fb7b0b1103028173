/**
 * What an instrument allows a demo account (decision 0131): its leverages per settlement type and
 * direction, and the stop-loss / take-profit bands, as percentages of the position's margin. The
 * bands are enforced when a position opens (open-market-order.ts) and by `slTpBandProblems`, the
 * one function the position edit calls.
 */
import type { Problem } from "../../../core/errors.js";
import type { Instrument } from "../../market/find-instruments.js";
import { type SettlementType, settlementOf } from "../costs/fee-schedule.js";

export interface Bands {
  minStopLossPercentage: number;
  maxStopLossPercentage: number;
  defaultStopLossPercentage: number;
  minTakeProfitPercentage: number;
  maxTakeProfitPercentage: number;
  defaultTakeProfitPercentage: number;
}

/**
 * A stop may not lie beyond the whole margin (a demo position never loses more than it holds, so a
 * deeper stop could never fire); a take-profit at most ten times the margin. Both only need to be
 * on the right side of the price (min 0). A real asset's default stop is the whole margin, a
 * CFD's half of it.
 */
export function bandsFor(settlement: SettlementType): Bands {
  return {
    minStopLossPercentage: 0,
    maxStopLossPercentage: 100,
    defaultStopLossPercentage: settlement === "REAL" ? 100 : 50,
    minTakeProfitPercentage: 0,
    maxTakeProfitPercentage: 1000,
    defaultTakeProfitPercentage: 1000,
  };
}

export interface LeverageConfig extends Bands {
  settlementType: SettlementType;
  direction: "LONG" | "SHORT";
  leverageValues: number[];
  isPotential: boolean;
  minPositionAmount: number;
  allowEditStopLoss: boolean;
  allowEditTakeProfit: boolean;
  allowStopLossTakeProfit: boolean;
}

/** Every settlement type × direction the instrument can be traded in, with its leverages. */
export function leverageConfigs(instrument: Pick<Instrument, "assetTypeId" | "allowedLeverages" | "minAmount">) {
  const configs: LeverageConfig[] = [];
  const add = (settlementType: SettlementType, direction: "LONG" | "SHORT", leverageValues: number[]) => {
    if (leverageValues.length === 0) return;
    configs.push({
      settlementType,
      direction,
      leverageValues,
      isPotential: false,
      minPositionAmount: instrument.minAmount,
      allowEditStopLoss: true,
      allowEditTakeProfit: true,
      allowStopLossTakeProfit: true,
      ...bandsFor(settlementType),
    });
  };
  const lev = [...instrument.allowedLeverages].sort((a, b) => a - b);
  const real = settlementOf(instrument.assetTypeId, true, 1) === "REAL";
  if (real && lev.includes(1)) add("REAL", "LONG", [1]);
  add("CFD", "LONG", real ? lev.filter((l) => l > 1) : lev);
  add("CFD", "SHORT", lev);
  return configs;
}

export interface StopTakeTerms {
  assetTypeId: number;
  isBuy: boolean;
  leverage: number;
  /** The position's open rate (or, for an order, the rate it would open at). */
  rate: number;
  /** 0 = none. */
  stopLossRate: number;
  /** 0 = none. */
  takeProfitRate: number;
}

const pct = (n: number) => String(Math.round(n * 100) / 100);

/** How far a rate lies from the open rate, as a percentage of the margin. */
export const marginPercentage = (rate: number, level: number, leverage: number) =>
  (Math.abs(level - rate) / rate) * leverage * 100;

/**
 * The problems of a stop-loss or take-profit outside its band (empty when both are inside). The
 * side rules (a buy's stop below the bid...) are the open's and edit's own; this checks distances.
 */
export function slTpBandProblems(terms: StopTakeTerms): Problem[] {
  const bands = bandsFor(settlementOf(terms.assetTypeId, terms.isBuy, terms.leverage));
  const problems: Problem[] = [];
  if (terms.stopLossRate > 0 && terms.rate > 0) {
    const p = marginPercentage(terms.rate, terms.stopLossRate, terms.leverage);
    if (p > bands.maxStopLossPercentage + 1e-9) {
      problems.push({
        field: "stopLossRate",
        problem: `must lose at most ${bands.maxStopLossPercentage}% of the margin at leverage ${terms.leverage}; ${terms.stopLossRate} would lose ${pct(p)}%`,
      });
    }
  }
  if (terms.takeProfitRate > 0 && terms.rate > 0) {
    const p = marginPercentage(terms.rate, terms.takeProfitRate, terms.leverage);
    if (p > bands.maxTakeProfitPercentage + 1e-9) {
      problems.push({
        field: "takeProfitRate",
        problem: `must gain at most ${bands.maxTakeProfitPercentage}% of the margin at leverage ${terms.leverage}; ${terms.takeProfitRate} would gain ${pct(p)}%`,
      });
    }
  }
  return problems;
}
