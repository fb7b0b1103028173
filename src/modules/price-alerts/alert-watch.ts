import type { Quote } from "../../core/market.js";
import { type Deps, transact } from "../context.js";
import { AlertIndex, type WatchedAlert } from "./alert-index.js";
import { type PriceAlertRow, priceAlertsRepository } from "./price-alerts.repository.js";

/** The alerts one process watches; every instance keeps its own, and firing is guarded. */
export interface AlertWatch {
  readonly index: AlertIndex;
  /** Alerts a follower saw reached on an applied tick, until the leader's firing arrives. */
  readonly firedElsewhere: Map<string, WatchedAlert>;
}

declare module "../context.js" {
  interface Deps {
    /** Price alerts: the active alerts by target, checked on every tick. */
    readonly alerts: AlertWatch;
  }
}

export const createAlertWatch = (): AlertWatch => ({ index: new AlertIndex(), firedElsewhere: new Map() });

const watched = (row: Pick<PriceAlertRow, "id" | "instrumentId" | "targetPrice" | "direction">): WatchedAlert => ({
  alertId: row.id,
  instrumentId: row.instrumentId,
  targetPrice: row.targetPrice,
  direction: row.direction,
});

/**
 * Keeps every instance's index in step with the alerts (`subscribeEverywhere`) and checks it on
 * every tick, as the stop-losses are (src/modules/trading/triggers.ts): the instance that ticked
 * (the leader) fires what the bid reached; a follower applying the leader's tick only keeps its
 * index in step, and watches again, once it leads, what it saw reached but never saw fire.
 */
export function registerAlertWatch(deps: Deps): void {
  const { index, firedElsewhere: pending } = deps.alerts;
  deps.metrics.gauge("price_alerts_watched", "Active price alerts this instance watches", () => index.size);
  deps.bus.subscribeEverywhere("PriceAlertSet", (e) =>
    index.add({ alertId: e.alertId, instrumentId: e.instrumentId, targetPrice: e.targetPrice, direction: e.direction }),
  );
  deps.bus.subscribeEverywhere("PriceAlertDeleted", (e) => {
    index.remove(e.alertId);
    pending.delete(e.alertId);
  });
  deps.bus.subscribeEverywhere("PriceAlertTriggered", (e) => {
    index.remove(e.alertId);
    pending.delete(e.alertId);
  });
  deps.market.onTick(async (quotes, tick) => {
    if (tick.applied) {
      for (const { alert } of reached(index, quotes)) pending.set(alert.alertId, alert);
      return;
    }
    if (pending.size > 0) {
      const alerts = [...pending.values()];
      pending.clear();
      for (const alert of alerts) await rewatch(deps, alert.alertId).catch(() => pending.set(alert.alertId, alert));
    }
    for (const { alert, bid } of reached(index, quotes)) {
      try {
        await fireAlert(deps, alert, bid);
      } catch (error) {
        deps.log.error({ err: error, alertId: alert.alertId }, "price alert could not fire");
        // Watch it again, so the next tick retries instead of the alert being lost.
        await rewatch(deps, alert.alertId).catch(() => {});
      }
    }
  });
}

function reached(index: AlertIndex, quotes: readonly Quote[]): { alert: WatchedAlert; bid: number }[] {
  const out: { alert: WatchedAlert; bid: number }[] = [];
  for (const q of quotes) for (const alert of index.update(q.instrumentId, q.bid)) out.push({ alert, bid: q.bid });
  return out;
}

/**
 * Fires one alert once, wherever it was reached: the row is marked only while it is still active
 * at the target that was reached (a concurrent retarget or delete wins), and the event is recorded
 * in the same transaction.
 */
export async function fireAlert(deps: Deps, alert: WatchedAlert, bid: number): Promise<boolean> {
  return transact(deps, async (trx, record) => {
    const at = deps.clock.now().toISOString();
    const row = await priceAlertsRepository(trx).markTriggered(alert.alertId, alert.targetPrice, at, bid);
    if (!row) return false;
    record({
      type: "PriceAlertTriggered",
      alertId: row.id,
      userId: row.userId,
      instrumentId: row.instrumentId,
      symbol: row.symbol,
      targetPrice: row.targetPrice,
      direction: row.direction,
      price: bid,
      occurredAt: at,
    });
    return true;
  });
}

async function rewatch(deps: Deps, alertId: string): Promise<void> {
  const row = await priceAlertsRepository(deps.db.kysely).findById(alertId);
  if (row && row.triggeredAt === null) deps.alerts.index.add(watched(row));
}

/** Rebuilds the index from the store (at start). */
export async function loadAlerts(deps: Deps): Promise<number> {
  const rows = await priceAlertsRepository(deps.db.kysely).allActive();
  for (const row of rows) deps.alerts.index.add(watched(row));
  return rows.length;
}
