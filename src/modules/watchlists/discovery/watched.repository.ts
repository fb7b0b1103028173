import type { Executor } from "../../../infra/db/executor.js";

export const watchedRepository = (db: Executor) => ({
  /** The instrument ids on any of `userId`'s watchlists. */
  async instrumentIdsOf(userId: string): Promise<number[]> {
    const rows = await db
      .selectFrom("watchlistItems")
      .innerJoin("watchlists", "watchlists.id", "watchlistItems.watchlistId")
      .select("watchlistItems.itemId")
      .distinct()
      .where("watchlists.userId", "=", userId)
      .where("watchlistItems.itemType", "=", "Instrument")
      .execute();
    return rows.map((r) => r.itemId);
  },
});
