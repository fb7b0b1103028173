import { isoNow } from "../../../core/clock.js";
import type { Ctx } from "../../context.js";
import { getPortfolio, type PositionValue } from "../read-account.js";

/** One instrument's positions summed, money in integer cents (decision 0108). */
export interface InstrumentAggregate {
  instrumentId: number;
  marginCents: number;
  feesCents: number;
  taxesCents: number;
  pnlCents: number;
  /** Long units minus short units. */
  netUnits: number;
  /** Σ ±units × close-side rate, USD. */
  netCurrentExposure: number;
  /** Σ ±units × open rate, USD. */
  netInitialExposure: number;
  /** Margin-weighted leverage. */
  avgLeverage: number;
  /** Units-weighted open rate. */
  avgOpenRate: number;
  /** Net initial exposure ÷ net units (0 when flat). */
  netAvgOpenRate: number;
}

export interface MirrorAggregate {
  mirrorId: number;
  availableCashCents: number;
  depositTotalCents: number;
  withdrawalTotalCents: number;
  stopLossCents: number;
  closedPnlCents: number;
  /** Margin of the copy's open positions. */
  marginCents: number;
  /** Unrealized P/L of the copy's open positions. */
  openPnlCents: number;
  instruments: InstrumentAggregate[];
}

export interface AggregatePortfolio {
  cid: number;
  timestamp: string;
  cashCents: number;
  frozenCents: number;
  /** The caller's own positions (mirror 0): margin and unrealized P/L, unfiltered. */
  manualMarginCents: number;
  manualPnlCents: number;
  /** Every copy, unfiltered: the totals' share of each is computed from them. */
  allMirrors: MirrorAggregate[];
  /** Empty when `mirrorIds` leaves mirror 0 (the caller's own positions) out. */
  instruments: InstrumentAggregate[];
  mirrors: MirrorAggregate[];
}

export interface AggregateFilter {
  instrumentIds?: number[] | undefined;
  mirrorIds?: number[] | undefined;
}

const sum = (values: number[]) => values.reduce((s, v) => s + v, 0);

/** Positions grouped by instrument (ascending id), each group summed. */
export function aggregateByInstrument(positions: PositionValue[]): InstrumentAggregate[] {
  const groups = new Map<number, PositionValue[]>();
  for (const p of positions) {
    const list = groups.get(p.position.instrumentId) ?? [];
    list.push(p);
    groups.set(p.position.instrumentId, list);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([instrumentId, list]) => {
      const signed = (p: PositionValue) => (p.position.isBuy === 1 ? p.position.units : -p.position.units);
      const marginCents = sum(list.map((p) => p.position.amountCents));
      const units = sum(list.map((p) => p.position.units));
      const netUnits = sum(list.map(signed));
      const netInitialExposure = sum(list.map((p) => signed(p) * p.position.openRate));
      return {
        instrumentId,
        marginCents,
        feesCents: sum(list.map((p) => p.feesCents)),
        taxesCents: sum(list.map((p) => p.taxesCents)),
        pnlCents: sum(list.map((p) => p.unrealizedPnlCents)),
        netUnits,
        netCurrentExposure: sum(list.map((p) => signed(p) * p.closeRate)),
        netInitialExposure,
        avgLeverage:
          marginCents > 0
            ? sum(list.map((p) => p.position.leverage * p.position.amountCents)) / marginCents
            : list[0]!.position.leverage,
        avgOpenRate: units > 0 ? sum(list.map((p) => p.position.units * p.position.openRate)) / units : 0,
        netAvgOpenRate: Math.abs(netUnits) > 1e-12 ? netInitialExposure / netUnits : 0,
      };
    });
}

/**
 * The caller's demo portfolio aggregated by instrument, the caller's own positions apart from
 * each copy's (upstream's getAggregatedPortfolioDemo). Read from the same snapshot as the
 * portfolio (getPortfolio), so the sums are the portfolio's positions' sums to the cent. The
 * filters scope the lists only: the account's and each copy's totals are always whole.
 */
export async function readAggregatePortfolio(ctx: Ctx, filter: AggregateFilter): Promise<AggregatePortfolio> {
  const p = await getPortfolio(ctx);
  const wanted = filter.instrumentIds ? new Set(filter.instrumentIds) : undefined;
  const scoped = (list: PositionValue[]) => (wanted ? list.filter((v) => wanted.has(v.position.instrumentId)) : list);
  const allMirrors = p.mirrors.map(
    ({ mirror: m, positions }): MirrorAggregate => ({
      mirrorId: m.mirrorId,
      availableCashCents: m.availableCashCents,
      depositTotalCents: m.initialInvestmentCents + m.depositCents,
      withdrawalTotalCents: m.withdrawalCents,
      stopLossCents: m.stopLossCents,
      closedPnlCents: m.closedPnlCents,
      marginCents: sum(positions.map((v) => v.position.amountCents)),
      openPnlCents: sum(positions.map((v) => v.unrealizedPnlCents)),
      instruments: aggregateByInstrument(scoped(positions)),
    }),
  );
  const mirrorIds = filter.mirrorIds ? new Set(filter.mirrorIds) : undefined;
  return {
    cid: p.account.cid,
    timestamp: isoNow(ctx.clock),
    cashCents: p.account.cashCents,
    // Entry orders reserve no cash (orders.schemas frozenAmount): nothing is frozen.
    frozenCents: 0,
    manualMarginCents: sum(p.positions.map((v) => v.position.amountCents)),
    manualPnlCents: sum(p.positions.map((v) => v.unrealizedPnlCents)),
    allMirrors,
    instruments: !mirrorIds || mirrorIds.has(0) ? aggregateByInstrument(scoped(p.positions)) : [],
    mirrors: mirrorIds ? allMirrors.filter((m) => mirrorIds.has(m.mirrorId)) : allMirrors,
  };
}
