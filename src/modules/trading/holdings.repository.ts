import type { Executor } from "../../infra/db/executor.js";

/** Who holds what: the instruments of open demo positions, for reads outside trading. */
export const holdingsRepository = (db: Executor) => ({
  /** Distinct (user, instrument) pairs of the given users' open positions. */
  async openInstrumentsOf(userIds: readonly string[]): Promise<{ userId: string; instrumentId: number }[]> {
    if (userIds.length === 0) return [];
    return db
      .selectFrom("demoPositions")
      .select(["userId", "instrumentId"])
      .distinct()
      .where("userId", "in", [...userIds])
      .where("status", "=", "open")
      .execute();
  },
});
