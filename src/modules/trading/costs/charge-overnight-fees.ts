import { isoNow } from "../../../core/clock.js";
import { type Deps, transact } from "../../context.js";
import { findInstrumentDetails } from "../../market/find-instruments.js";
import { rolloversBetween } from "../../market/hours/market-hours.js";
import { rolloverFeeCents } from "./costs-math.js";
import { overnightRatesOf, settlementOf } from "./fee-schedule.js";
import { overnightFeesRepository } from "./overnight-fees.repository.js";

export interface OvernightFeesReport {
  /** Position × rollover charges made by this pass. */
  charged: number;
  /** USD cents taken from cash by them. */
  cents: number;
}

/** How far back a pass looks for positions closed after a rollover they were held over. */
const LOOKBACK_MS = 8 * 86_400_000;

/**
 * Charges the overnight fee (three nights at Friday's rollover, the weekend, for every class but
 * crypto, whose rollovers run daily) to every CFD position held over a daily rollover (17:00 New
 * York) and not charged for it yet (decision 0132). Each charge is one transaction that records
 * (position, rollover) under a primary key and takes the fee from the cash as realised loss, so
 * it happens exactly once whichever instance runs the pass, and a restart, or a pass that fails
 * half way, catches up on the next run. Run by the maintenance pass (every 10 minutes).
 */
export async function chargeOvernightFees(deps: Deps): Promise<OvernightFeesReport> {
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const reader = overnightFeesRepository(deps.db.kysely);
  const positions = await reader.positionsHeldSince(new Date(now.getTime() - LOOKBACK_MS).toISOString());
  if (positions.length === 0) return { charged: 0, cents: 0 };
  const instruments = await findInstrumentDetails(deps, [...new Set(positions.map((p) => p.instrumentId))]);
  const done = await reader.chargedDates(positions.map((p) => p.positionId));
  const report: OvernightFeesReport = { charged: 0, cents: 0 };
  for (const p of positions) {
    const instrument = instruments.get(p.instrumentId);
    if (!instrument) continue;
    const isBuy = p.isBuy === 1;
    if (settlementOf(instrument.assetTypeId, isBuy, p.leverage) !== "CFD") continue;
    const rates = overnightRatesOf(instrument.assetTypeId);
    const until = p.status === "open" ? now : new Date(p.lastUpdate);
    // A closed position's margin left with its close: it is charged on what it opened with.
    const marginCents = p.status === "open" ? Number(p.amountCents) : Number(p.initialAmountCents);
    for (const rollover of rolloversBetween(new Date(p.openDateTime), until)) {
      if (done.get(p.positionId)?.has(rollover.date)) continue;
      // Markets that rest at the weekend roll over Monday to Friday; Friday's carries the weekend.
      if (rates.weekendTriple && (rollover.weekday === 0 || rollover.weekday === 6)) continue;
      const fee = rolloverFeeCents(marginCents * p.leverage, isBuy, rates, rollover.weekday);
      const taken = await transact(deps, async (trx) => {
        const repo = overnightFeesRepository(trx);
        const row = {
          positionId: p.positionId,
          rolloverDate: rollover.date,
          userId: p.userId,
          instrumentId: p.instrumentId,
          feeCents: fee.cents,
          isWeekend: fee.weekend ? 1 : 0,
          chargedAt: nowIso,
        };
        if (!(await repo.record(row))) return null;
        const charged = await repo.charge(p.userId, fee.cents, isoNow(deps.clock));
        if (charged !== fee.cents) {
          // The cash ran short: the row says what was really taken.
          await trx
            .updateTable("demoOvernightFees")
            .set({ feeCents: charged })
            .where("positionId", "=", p.positionId)
            .where("rolloverDate", "=", rollover.date)
            .execute();
        }
        return charged;
      });
      if (taken !== null) {
        report.charged += 1;
        report.cents += taken;
      }
    }
  }
  return report;
}
