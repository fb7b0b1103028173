import type { Quote } from "../../core/market.js";
import type { Deps } from "../context.js";
import { closeByTrigger } from "./close-position.js";
import type { PositionRow } from "./trading.repository.js";
import { tradingRepository } from "./trading.repository.js";
import { type Fired, TriggerIndex, type TriggerSpec } from "./trigger-index.js";

/** The triggers one process watches; every instance keeps its own, and closes are guarded. */
export interface TriggerWatch {
  readonly index: TriggerIndex;
  /**
   * Positions a follower saw fire on an applied tick, until their close arrives: the leader closes
   * them, and a follower that becomes leader first watches again those still open (the old leader
   * may have stopped between the tick and the close).
   */
  readonly firedElsewhere: Set<number>;
}

declare module "../context.js" {
  interface Deps {
    /** Trading: the open positions' stop-loss, take-profit and trailing-stop levels, checked on every tick. */
    readonly triggers: TriggerWatch;
  }
}

export const createTriggerWatch = (): TriggerWatch => ({ index: new TriggerIndex(), firedElsewhere: new Set() });

const specOf = (p: Omit<TriggerSpec, "bestRate"> & { tslGap?: number | undefined }): TriggerSpec => ({
  positionId: p.positionId,
  instrumentId: p.instrumentId,
  isBuy: p.isBuy,
  stopLossRate: p.stopLossRate,
  takeProfitRate: p.takeProfitRate,
  isTslEnabled: p.isTslEnabled,
  // The best price a trailing stop starts from is where the stop sits plus its gap.
  ...(p.isTslEnabled
    ? { bestRate: p.isBuy ? p.stopLossRate + (p.tslGap ?? 0) : p.stopLossRate - (p.tslGap ?? 0) }
    : {}),
});

/** The stop-loss in force for a position: a trailing stop's current level, else the one set. */
export function currentStopOf(deps: Pick<Deps, "triggers">, position: PositionRow): number {
  return deps.triggers.index.currentStop(position.positionId) ?? position.stopLossRate;
}

/**
 * Keeps the index in step with positions in every instance (`subscribeEverywhere`, so a position
 * opened through one instance is watched by all) and checks it on every tick. Fired positions
 * leave the index at once; the instance that ticked (the leader) closes them at their trigger
 * rate through the same close a client uses, while a follower applying the leader's tick only
 * keeps its index (trailing levels included) in step.
 */
export function registerTradingTriggers(deps: Deps): void {
  const { index, firedElsewhere: pending } = deps.triggers;
  deps.bus.subscribeEverywhere("PositionOpened", (e) => index.add(specOf(e)));
  deps.bus.subscribeEverywhere("PositionClosed", (e) => {
    if (!e.fullyClosed) return;
    index.remove(e.positionId);
    pending.delete(e.positionId);
  });
  deps.market.onTick(async (quotes, tick) => {
    if (tick.applied) {
      for (const fired of evaluateTick(index, quotes)) pending.add(fired.positionId);
      return;
    }
    if (pending.size > 0) {
      const ids = [...pending];
      pending.clear();
      for (const id of ids) await rewatch(deps, id).catch(() => pending.add(id));
    }
    for (const fired of evaluateTick(index, quotes)) {
      try {
        const rate = tick.reopened?.has(fired.instrumentId) ? await gapFill(deps, fired, quotes) : fired.rate;
        await closeByTrigger(deps, fired.positionId, fired.kind, rate);
      } catch (error) {
        deps.log.error({ err: error, positionId: fired.positionId }, "trigger close failed");
        // Watch it again, so the next tick retries instead of the stop being lost. When the store
        // cannot even be read (it is away: the close failed for that), keep it pending: each
        // tick tries to watch it again until the store answers (found by test/faults/postgres).
        await rewatch(deps, fired.positionId).catch(() => pending.add(fired.positionId));
      }
    }
  });
}

/**
 * The trading gauges, read when /metrics is scraped (nothing is counted per order or tick): open
 * positions (of every instance: a count in the store) and the triggers this instance's index
 * has armed (positions with a stop-loss, take-profit or trailing stop being watched).
 */
export function registerTradingMetrics(deps: Deps): void {
  deps.metrics.gauge("trading_open_positions", "Open demo positions (all users, all instances)", () =>
    tradingRepository(deps.db.kysely).countOpenPositions(),
  );
  deps.metrics.gauge(
    "trading_armed_triggers",
    "Positions whose stop-loss, take-profit or trailing stop this instance watches",
    () => deps.triggers.index.size,
  );
}

/**
 * Where a trigger fired by the first price after its market was closed fills: at that price (the
 * close side of the position), not at its level, as a broker fills a stop or a limit at the open
 * when the price gapped past it (decision 0128). Between ticks of an open market a trigger fills
 * at its level.
 */
export async function gapFill(deps: Deps, fired: Fired, quotes: readonly Quote[]): Promise<number> {
  const quote = quotes.find((q) => q.instrumentId === fired.instrumentId);
  const position = await tradingRepository(deps.db.kysely).findPosition(fired.positionId);
  if (!quote || !position) return fired.rate;
  return position.isBuy === 1 ? quote.bid : quote.ask;
}

export function evaluateTick(index: TriggerIndex, quotes: readonly Quote[]): Fired[] {
  const fired: Fired[] = [];
  for (const q of quotes) {
    const hits = index.update(q.instrumentId, q.bid, q.ask);
    for (const hit of hits) fired.push(hit);
  }
  return fired;
}

async function rewatch(deps: Deps, positionId: number): Promise<void> {
  const row = await tradingRepository(deps.db.kysely).findPosition(positionId);
  if (row?.status === "open") deps.triggers.index.add(specOfRow(row));
}

const specOfRow = (row: PositionRow): TriggerSpec =>
  specOf({
    positionId: row.positionId,
    instrumentId: row.instrumentId,
    isBuy: row.isBuy === 1,
    stopLossRate: row.stopLossRate,
    takeProfitRate: row.takeProfitRate,
    isTslEnabled: row.isTslEnabled === 1,
    tslGap: row.tslGap,
  });

/**
 * Stores the level every trailing stop has moved to, so a restart resumes from there rather than
 * from where it was opened. Run by the retention pass (every 10 minutes) and at shutdown.
 */
export async function persistTrailingStops(deps: Deps): Promise<number> {
  const repo = tradingRepository(deps.db.kysely);
  let saved = 0;
  for (const { positionId, stopLossRate } of [...deps.triggers.index.trailingStops()]) {
    if (await repo.saveTrailingStop(positionId, stopLossRate)) saved += 1;
  }
  return saved;
}

/** Rebuilds the index from the store (at start). A trailing stop resumes from its stored level. */
export async function loadTriggers(deps: Deps): Promise<number> {
  const index = deps.triggers.index;
  const rows = await tradingRepository(deps.db.kysely).openPositionsWithTriggers();
  for (const row of rows) index.add(specOfRow(row));
  return rows.length;
}
