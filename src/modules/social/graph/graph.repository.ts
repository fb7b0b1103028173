import type { Executor } from "../../../infra/db/executor.js";
import { prepared } from "../../../infra/db/prepared.js";
import type { Ids } from "../shared/social.rows.js";

/** The read of the discussion path, compiled once (infra/db/prepared.ts; see posts/post-queries.repository.ts). */
const Q = {
  blocksWith: prepared(
    (db, _: null, [requesterId, others]: readonly [string, Ids]) =>
      db
        .selectFrom("userBlocks")
        .select(["blockerId", "blockedId"])
        .where((eb) =>
          eb.or([
            eb.and([eb("blockerId", "=", requesterId), eb("blockedId", "in", others)]),
            eb.and([eb("blockedId", "=", requesterId), eb("blockerId", "in", others)]),
          ]),
        ),
    () => "",
  ),
};

export const graphRepository = (db: Executor) => ({
  async follow(followerId: string, followeeId: string, at: string): Promise<boolean> {
    const r = await db
      .insertInto("userFollows")
      .values({ followerId, followeeId, createdAt: at })
      .onConflict((oc) => oc.columns(["followerId", "followeeId"]).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
  },

  async unfollow(followerId: string, followeeId: string): Promise<void> {
    await db
      .deleteFrom("userFollows")
      .where("followerId", "=", followerId)
      .where("followeeId", "=", followeeId)
      .execute();
  },

  async followees(followerId: string, among: readonly string[]): Promise<Set<string>> {
    if (among.length === 0) return new Set();
    const rows = await db
      .selectFrom("userFollows")
      .select("followeeId")
      .where("followerId", "=", followerId)
      .where("followeeId", "in", among)
      .execute();
    return new Set(rows.map((r) => r.followeeId));
  },

  async block(blockerId: string, blockedId: string, at: string): Promise<void> {
    await db
      .insertInto("userBlocks")
      .values({ blockerId, blockedId, createdAt: at })
      .onConflict((oc) => oc.columns(["blockerId", "blockedId"]).doNothing())
      .execute();
  },

  async unblock(blockerId: string, blockedId: string): Promise<void> {
    await db.deleteFrom("userBlocks").where("blockerId", "=", blockerId).where("blockedId", "=", blockedId).execute();
  },

  /** Block relations between the requester and `others`, both directions. */
  async blocksWith(requesterId: string, others: readonly string[]) {
    const blocking = new Set<string>();
    const blockedBy = new Set<string>();
    if (others.length === 0) return { blocking, blockedBy };
    const rows = await Q.blocksWith(db, null, [requesterId, others]);
    for (const r of rows) {
      if (r.blockerId === requesterId) blocking.add(r.blockedId);
      else blockedBy.add(r.blockerId);
    }
    return { blocking, blockedBy };
  },
});
