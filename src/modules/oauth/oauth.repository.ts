import type { Selectable } from "kysely";
import type { Executor } from "../../infra/db/executor.js";
import type {
  OauthClientsTable,
  OauthCodesTable,
  OauthGrantsTable,
  OauthRefreshTokensTable,
  OauthSessionsTable,
  OauthSigningKeysTable,
} from "../../infra/db/schema.js";

export type ClientRow = Selectable<OauthClientsTable>;
export type SigningKeyRow = Selectable<OauthSigningKeysTable>;
export type SessionRow = Selectable<OauthSessionsTable>;
export type GrantRow = Selectable<OauthGrantsTable>;
export type CodeRow = Selectable<OauthCodesTable>;
export type RefreshTokenRow = Selectable<OauthRefreshTokensTable>;

export const oauthRepository = (db: Executor) => ({
  /**
   * Deletes codes, refresh tokens and sign-in sessions that expired before `at` (ISO). A spent
   * refresh token is kept until it expires, so that its reuse is still detected until then.
   */
  async deleteExpired(at: string): Promise<{ codes: number; refreshTokens: number; sessions: number }> {
    const codes = await db.deleteFrom("oauthCodes").where("expiresAt", "<", at).executeTakeFirst();
    const refreshTokens = await db.deleteFrom("oauthRefreshTokens").where("expiresAt", "<", at).executeTakeFirst();
    const sessions = await db.deleteFrom("oauthSessions").where("expiresAt", "<", at).executeTakeFirst();
    return {
      codes: Number(codes.numDeletedRows),
      refreshTokens: Number(refreshTokens.numDeletedRows),
      sessions: Number(sessions.numDeletedRows),
    };
  },

  async findSetting(name: string): Promise<string | undefined> {
    return (await db.selectFrom("oauthSettings").select("value").where("name", "=", name).executeTakeFirst())?.value;
  },

  async putSetting(name: string, value: string, at: string): Promise<void> {
    await db
      .insertInto("oauthSettings")
      .values({ name, value, updatedAt: at })
      .onConflict((oc) => oc.column("name").doUpdateSet({ value, updatedAt: at }))
      .execute();
  },

  /** Stores a setting unless one of that name exists (instances racing at first use agree). */
  async putSettingIfAbsent(name: string, value: string, at: string): Promise<void> {
    await db
      .insertInto("oauthSettings")
      .values({ name, value, updatedAt: at })
      .onConflict((oc) => oc.column("name").doNothing())
      .execute();
  },

  async insertClient(row: ClientRow): Promise<void> {
    await db.insertInto("oauthClients").values(row).execute();
  },

  async findClient(id: string): Promise<ClientRow | undefined> {
    return db.selectFrom("oauthClients").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async listClients(): Promise<ClientRow[]> {
    return db.selectFrom("oauthClients").selectAll().orderBy("createdAt").orderBy("id").execute();
  },

  async listSigningKeys(): Promise<SigningKeyRow[]> {
    return db.selectFrom("oauthSigningKeys").selectAll().orderBy("createdAt", "desc").orderBy("kid", "desc").execute();
  },

  async insertSigningKey(row: SigningKeyRow): Promise<void> {
    await db.insertInto("oauthSigningKeys").values(row).execute();
  },

  async retireSigningKeys(at: string): Promise<number> {
    const result = await db
      .updateTable("oauthSigningKeys")
      .set({ retiredAt: at })
      .where("retiredAt", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  },

  /** Replaces a key's stored private half, only if it still is `from`: false when it changed meanwhile. */
  async replaceSigningKeySecret(kid: string, from: string, to: string): Promise<boolean> {
    const result = await db
      .updateTable("oauthSigningKeys")
      .set({ privateJwk: to })
      .where("kid", "=", kid)
      .where("privateJwk", "=", from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async deleteSigningKeysExcept(kid: string): Promise<number> {
    const result = await db.deleteFrom("oauthSigningKeys").where("kid", "!=", kid).executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  async insertSession(row: SessionRow): Promise<void> {
    await db.insertInto("oauthSessions").values(row).execute();
  },

  async findSession(idHash: string): Promise<SessionRow | undefined> {
    return db.selectFrom("oauthSessions").selectAll().where("idHash", "=", idHash).executeTakeFirst();
  },

  async deleteSession(idHash: string): Promise<void> {
    await db.deleteFrom("oauthSessions").where("idHash", "=", idHash).execute();
  },

  async deleteExpiredSessions(now: string): Promise<void> {
    await db.deleteFrom("oauthSessions").where("expiresAt", "<", now).execute();
  },

  async insertCode(row: CodeRow): Promise<void> {
    await db.insertInto("oauthCodes").values(row).execute();
  },

  async findCode(codeHash: string): Promise<CodeRow | undefined> {
    return db.selectFrom("oauthCodes").selectAll().where("codeHash", "=", codeHash).executeTakeFirst();
  },

  /** The guarded write that makes a code single-use: false when someone else spent it first. */
  async spendCode(codeHash: string, at: string, grantId: string): Promise<boolean> {
    const result = await db
      .updateTable("oauthCodes")
      .set({ usedAt: at, grantId })
      .where("codeHash", "=", codeHash)
      .where("usedAt", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async deleteStaleCodes(before: string): Promise<void> {
    await db.deleteFrom("oauthCodes").where("expiresAt", "<", before).execute();
  },

  async insertGrant(row: GrantRow): Promise<void> {
    await db.insertInto("oauthGrants").values(row).execute();
  },

  async findGrant(id: string): Promise<GrantRow | undefined> {
    return db.selectFrom("oauthGrants").selectAll().where("id", "=", id).executeTakeFirst();
  },

  /** The per-request check of a bearer token: is its grant still alive? */
  async isGrantActive(id: string, userId: string): Promise<boolean> {
    const row = await db
      .selectFrom("oauthGrants")
      .select("id")
      .where("id", "=", id)
      .where("userId", "=", userId)
      .where("revokedAt", "is", null)
      .executeTakeFirst();
    return row !== undefined;
  },

  async revokeGrant(id: string, at: string, reason: string): Promise<boolean> {
    const result = await db
      .updateTable("oauthGrants")
      .set({ revokedAt: at, revokedReason: reason })
      .where("id", "=", id)
      .where("revokedAt", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async insertRefreshToken(row: RefreshTokenRow): Promise<void> {
    await db.insertInto("oauthRefreshTokens").values(row).execute();
  },

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRow | undefined> {
    return db.selectFrom("oauthRefreshTokens").selectAll().where("tokenHash", "=", tokenHash).executeTakeFirst();
  },

  /** The guarded write of rotation: false when the token was already spent (a reuse). */
  async spendRefreshToken(tokenHash: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable("oauthRefreshTokens")
      .set({ usedAt: at })
      .where("tokenHash", "=", tokenHash)
      .where("usedAt", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },
});
