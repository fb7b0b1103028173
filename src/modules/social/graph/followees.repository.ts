import type { Executor } from "../../../infra/db/executor.js";

export const followeesRepository = (db: Executor) => ({
  /** The users `followerId` follows, oldest follow first. */
  async followeesOf(followerId: string): Promise<string[]> {
    const rows = await db
      .selectFrom("userFollows")
      .select("followeeId")
      .where("followerId", "=", followerId)
      .orderBy("createdAt")
      .orderBy("followeeId")
      .execute();
    return rows.map((r) => r.followeeId);
  },
});
