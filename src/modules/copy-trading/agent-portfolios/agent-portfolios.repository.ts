import type { Insertable, Selectable } from "kysely";
import type { Executor } from "../../../infra/db/executor.js";
import type { AgentPortfoliosTable, KeyPairsTable } from "../../../infra/db/schema.js";

export type AgentPortfolioRow = Omit<Selectable<AgentPortfoliosTable>, "virtualBalanceCents"> & {
  virtualBalanceCents: number;
};
export type UserTokenRow = Selectable<KeyPairsTable>;

const portfolio = (r: Selectable<AgentPortfoliosTable>): AgentPortfolioRow => ({
  ...r,
  virtualBalanceCents: Number(r.virtualBalanceCents),
});

export const agentPortfoliosRepository = (db: Executor) => ({
  async insert(row: Insertable<AgentPortfoliosTable>): Promise<void> {
    await db.insertInto("agentPortfolios").values(row).execute();
  },

  async listOf(ownerUserId: string): Promise<AgentPortfolioRow[]> {
    const rows = await db
      .selectFrom("agentPortfolios")
      .selectAll()
      .where("ownerUserId", "=", ownerUserId)
      .orderBy("createdAt")
      .orderBy("id")
      .execute();
    return rows.map(portfolio);
  },

  async findOwned(ownerUserId: string, id: string): Promise<AgentPortfolioRow | undefined> {
    const row = await db
      .selectFrom("agentPortfolios")
      .selectAll()
      .where("ownerUserId", "=", ownerUserId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row && portfolio(row);
  },

  async nameTaken(ownerUserId: string, nameLower: string): Promise<boolean> {
    const row = await db
      .selectFrom("agentPortfolios")
      .select("id")
      .where("ownerUserId", "=", ownerUserId)
      .where("nameLower", "=", nameLower)
      .executeTakeFirst();
    return row !== undefined;
  },

  async remove(id: string): Promise<void> {
    await db.deleteFrom("agentPortfolios").where("id", "=", id).execute();
  },

  /** The portfolio's user tokens that are not revoked. */
  async tokensOf(agentPortfolioIds: readonly string[]): Promise<UserTokenRow[]> {
    if (agentPortfolioIds.length === 0) return [];
    return db
      .selectFrom("keyPairs")
      .selectAll()
      .where("agentPortfolioId", "in", [...agentPortfolioIds])
      .where("revokedAt", "is", null)
      .orderBy("createdAt")
      .orderBy("id")
      .execute();
  },

  async insertToken(row: Insertable<KeyPairsTable>): Promise<void> {
    await db.insertInto("keyPairs").values(row).execute();
  },

  async updateToken(
    id: string,
    change: { scopes?: string; ipsWhitelist?: string | null; expiresAt?: string | null },
  ): Promise<void> {
    await db.updateTable("keyPairs").set(change).where("id", "=", id).where("revokedAt", "is", null).execute();
  },

  async revokeToken(id: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable("keyPairs")
      .set({ revokedAt: at })
      .where("id", "=", id)
      .where("revokedAt", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** The caller's own key pair: its application's API key hash binds the tokens it makes. */
  async findCallerKey(keyPairId: string): Promise<UserTokenRow | undefined> {
    return db.selectFrom("keyPairs").selectAll().where("id", "=", keyPairId).executeTakeFirst();
  },
});
