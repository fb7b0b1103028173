import type { Executor } from "../../../infra/db/executor.js";

/** Who chose to publish their trades as posts (decision 0175). */
export function tradePostsRepository(db: Executor) {
  return {
    async isEnabled(userId: string): Promise<boolean> {
      const row = await db
        .selectFrom("tradePostChoices")
        .select("enabled")
        .where("userId", "=", userId)
        .executeTakeFirst();
      return row?.enabled === 1;
    },

    async setEnabled(userId: string, enabled: boolean, at: string): Promise<void> {
      await db
        .insertInto("tradePostChoices")
        .values({ userId, enabled: enabled ? 1 : 0, updatedAt: at })
        .onConflict((oc) => oc.column("userId").doUpdateSet({ enabled: enabled ? 1 : 0, updatedAt: at }))
        .execute();
    },
  };
}
