import type { Selectable } from "kysely";
import type { Executor } from "../../infra/db/executor.js";
import type { ClubMembershipsTable } from "../../infra/db/schema.js";

export type MembershipRow = Selectable<ClubMembershipsTable>;

export const clubsRepository = (db: Executor) => ({
  async find(userId: string): Promise<MembershipRow | undefined> {
    return db.selectFrom("clubMemberships").selectAll().where("userId", "=", userId).executeTakeFirst();
  },

  async save(row: MembershipRow): Promise<void> {
    await db
      .insertInto("clubMemberships")
      .values(row)
      .onConflict((oc) =>
        oc.column("userId").doUpdateSet({ tier: row.tier, belowSince: row.belowSince, updatedAt: row.updatedAt }),
      )
      .execute();
  },
});
