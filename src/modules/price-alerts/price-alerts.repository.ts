import type { Selectable } from "kysely";
import type { Executor } from "../../infra/db/executor.js";
import type { PriceAlertsTable } from "../../infra/db/schema.js";
import { lockRows } from "../../infra/db/transactions.js";

export type PriceAlertRow = Selectable<PriceAlertsTable>;

export const priceAlertsRepository = (db: Executor) => ({
  /** One user's alert creations queue on their user row, so the per-user limit holds (PostgreSQL). */
  async lockOwner(userId: string): Promise<void> {
    await lockRows(db, db.selectFrom("users").select("id").where("id", "=", userId));
  },

  async insert(row: PriceAlertRow): Promise<void> {
    await db.insertInto("priceAlerts").values(row).execute();
  },

  /** An active alert of `userId`; a fired one or another user's is not found. */
  async findActive(id: string, userId: string): Promise<PriceAlertRow | undefined> {
    return db
      .selectFrom("priceAlerts")
      .selectAll()
      .where("id", "=", id)
      .where("userId", "=", userId)
      .where("triggeredAt", "is", null)
      .executeTakeFirst();
  },

  async listActive(userId: string): Promise<PriceAlertRow[]> {
    return db
      .selectFrom("priceAlerts")
      .selectAll()
      .where("userId", "=", userId)
      .where("triggeredAt", "is", null)
      .orderBy("createdAt", "desc")
      .orderBy("id")
      .execute();
  },

  async countActive(userId: string): Promise<number> {
    const row = await db
      .selectFrom("priceAlerts")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("userId", "=", userId)
      .where("triggeredAt", "is", null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** Every active alert (the index is rebuilt from them at start). */
  async allActive(): Promise<PriceAlertRow[]> {
    return db.selectFrom("priceAlerts").selectAll().where("triggeredAt", "is", null).execute();
  },

  async retarget(
    id: string,
    change: Pick<PriceAlertRow, "targetPrice" | "direction" | "currentPrice" | "updatedAt">,
  ): Promise<boolean> {
    const result = await db
      .updateTable("priceAlerts")
      .set(change)
      .where("id", "=", id)
      .where("triggeredAt", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async deleteActive(id: string, userId: string): Promise<boolean> {
    const result = await db
      .deleteFrom("priceAlerts")
      .where("id", "=", id)
      .where("userId", "=", userId)
      .where("triggeredAt", "is", null)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  },

  async findById(id: string): Promise<PriceAlertRow | undefined> {
    return db.selectFrom("priceAlerts").selectAll().where("id", "=", id).executeTakeFirst();
  },

  /**
   * Fires an alert still active at `targetPrice`: undefined when it already fired, was deleted or
   * was given another target meanwhile.
   */
  async markTriggered(id: string, targetPrice: number, at: string, price: number): Promise<PriceAlertRow | undefined> {
    const result = await db
      .updateTable("priceAlerts")
      .set({ triggeredAt: at, triggeredPrice: price })
      .where("id", "=", id)
      .where("targetPrice", "=", targetPrice)
      .where("triggeredAt", "is", null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return undefined;
    return db.selectFrom("priceAlerts").selectAll().where("id", "=", id).executeTakeFirst();
  },
});
