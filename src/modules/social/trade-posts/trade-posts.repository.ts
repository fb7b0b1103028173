import type { Executor } from "../../../infra/db/executor.js";
import { prepared } from "../../../infra/db/prepared.js";

const isEnabledQuery = prepared(
  (db, _: null, [userId]: readonly [string]) =>
    db.selectFrom("tradePostChoices").select("enabled").where("userId", "=", userId),
  () => "",
);

/** Who chose to publish their trades as posts (decision 0175). */
export function tradePostsRepository(db: Executor) {
  return {
    /** Asked after every demo open and close: compiled once (infra/db/prepared.ts; decision 0183). */
    async isEnabled(userId: string): Promise<boolean> {
      const [row] = await isEnabledQuery(db, null, [userId]);
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
