import { sql } from "kysely";
import type { Executor } from "../../../infra/db/executor.js";

export const overnightFeesRepository = (db: Executor) => ({
  /** Records a charge; false when this position was already charged at this rollover. */
  async record(row: {
    positionId: number;
    rolloverDate: string;
    userId: string;
    instrumentId: number;
    feeCents: number;
    isWeekend: number;
    chargedAt: string;
  }): Promise<boolean> {
    const inserted = await db
      .insertInto("demoOvernightFees")
      .values(row)
      .onConflict((oc) => oc.columns(["positionId", "rolloverDate"]).doNothing())
      .returning("positionId")
      .executeTakeFirst();
    return inserted !== undefined;
  },

  /** Takes up to `cents` from the cash (never below zero) as realised loss; returns what it took. */
  async charge(userId: string, cents: number, at: string): Promise<number> {
    const account = await db
      .selectFrom("demoAccounts")
      .select("cashCents")
      .where("userId", "=", userId)
      .executeTakeFirst();
    const taken = Math.max(0, Math.min(cents, Number(account?.cashCents ?? 0)));
    if (taken === 0) return 0;
    await db
      .updateTable("demoAccounts")
      .set({
        cashCents: sql`cash_cents - ${taken}`,
        realizedPnlCents: sql`realized_pnl_cents - ${taken}`,
        updatedAt: at,
      })
      .where("userId", "=", userId)
      .execute();
    return taken;
  },

  /** Rollover dates already charged, per position. */
  async chargedDates(positionIds: readonly number[]): Promise<Map<number, Set<string>>> {
    const out = new Map<number, Set<string>>();
    for (let i = 0; i < positionIds.length; i += 500) {
      const rows = await db
        .selectFrom("demoOvernightFees")
        .select(["positionId", "rolloverDate"])
        .where("positionId", "in", positionIds.slice(i, i + 500))
        .execute();
      for (const r of rows) {
        const set = out.get(r.positionId) ?? new Set<string>();
        set.add(r.rolloverDate);
        out.set(r.positionId, set);
      }
    }
    return out;
  },

  /** Fees charged so far, in cents, per position. */
  async totals(positionIds: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    for (let i = 0; i < positionIds.length; i += 500) {
      const rows = await db
        .selectFrom("demoOvernightFees")
        .select(["positionId", (eb) => eb.fn.sum<number | string>("feeCents").as("total")])
        .where("positionId", "in", positionIds.slice(i, i + 500))
        .groupBy("positionId")
        .execute();
      for (const r of rows) out.set(r.positionId, Number(r.total));
    }
    return out;
  },

  /** Records the SDRT a position paid at its open, as realised loss (its cash left with the margin). */
  async recordTax(row: { positionId: number; userId: string; taxCents: number; chargedAt: string }): Promise<void> {
    await db.insertInto("demoPositionTaxes").values(row).execute();
    await db
      .updateTable("demoAccounts")
      .set({ realizedPnlCents: sql`realized_pnl_cents - ${row.taxCents}`, updatedAt: row.chargedAt })
      .where("userId", "=", row.userId)
      .execute();
  },

  /** SDRT paid, in cents, per position. */
  async taxes(positionIds: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    for (let i = 0; i < positionIds.length; i += 500) {
      const rows = await db
        .selectFrom("demoPositionTaxes")
        .select(["positionId", "taxCents"])
        .where("positionId", "in", positionIds.slice(i, i + 500))
        .execute();
      for (const r of rows) out.set(r.positionId, Number(r.taxCents));
    }
    return out;
  },

  /** Positions open now, or closed at or after `since` (held past a recent rollover). */
  async positionsHeldSince(since: string) {
    return db
      .selectFrom("demoPositions")
      .select([
        "positionId",
        "userId",
        "instrumentId",
        "isBuy",
        "leverage",
        "amountCents",
        "initialAmountCents",
        "openDateTime",
        "status",
        "lastUpdate",
      ])
      .where((eb) => eb.or([eb("status", "=", "open"), eb("lastUpdate", ">=", since)]))
      .execute();
  },
});
