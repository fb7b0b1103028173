import { type Problem, validationFailed } from "../../../core/errors.js";
import type { OrderSize } from "../open-market-order.js";

/** How an order was sized (v2 lookup's `requestType`). */
export type RequestType = "byAmount" | "byUnits" | "byContracts";

export interface SizeRequest {
  amount?: number | null | undefined;
  units?: number | null | undefined;
  contracts?: number | null | undefined;
}

export interface Sizing {
  size: OrderSize;
  requestType: RequestType;
  /** The contracts asked for (byContracts), else null. */
  requestedContracts: number | null;
}

/** Units of `contracts` contracts of `contractSize` units each. */
export const unitsForContracts = (contracts: number, contractSize: number) => contracts * contractSize;

/** Contracts that `units` units make (the inverse of unitsForContracts). */
export const contractsForUnits = (units: number, contractSize: number) => units / contractSize;

const present = (v: number | null | undefined): v is number => v !== null && v !== undefined;

/**
 * Exactly one of amount, units or contracts sizes an order. Contracts are units in lots of the
 * instrument's contract size, so they exist only where the instrument defines one (`contractSize`
 * undefined: a 422 naming the field). The amount's and the units' own rules (positive, minimum,
 * cash) are the open's (../open-market-order.ts validate).
 */
export function sizeOf(request: SizeRequest, contractSize: number | undefined, symbol: string): Sizing {
  const given = (["amount", "units", "contracts"] as const).filter((k) => present(request[k]));
  if (given.length !== 1) {
    const problem: Problem =
      given.length === 0
        ? {
            field: "amount",
            problem: "is required: size the order with exactly one of {amount}, {units} or {contracts}",
          }
        : {
            field: given[1]!,
            problem: `must be absent when {${given[0]}} is given: size the order with exactly one of {amount}, {units} or {contracts}`,
          };
    throw validationFailed([problem]);
  }
  if (present(request.amount))
    return { size: { amount: request.amount }, requestType: "byAmount", requestedContracts: null };
  if (present(request.units))
    return { size: { units: request.units }, requestType: "byUnits", requestedContracts: null };
  const contracts = request.contracts as number;
  if (contractSize === undefined) {
    throw validationFailed([
      {
        field: "contracts",
        problem: `must be absent: ${symbol} defines no contract size; size the order by {amount} or {units}`,
      },
    ]);
  }
  if (!Number.isFinite(contracts) || contracts <= 0) {
    throw validationFailed([
      { field: "contracts", problem: `must be a positive number of contracts; got ${contracts}` },
    ]);
  }
  return {
    size: { units: unitsForContracts(contracts, contractSize) },
    requestType: "byContracts",
    requestedContracts: contracts,
  };
}
