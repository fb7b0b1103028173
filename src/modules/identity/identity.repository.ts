import type { Insertable, Selectable } from "kysely";
import type { Executor } from "../../infra/db/executor.js";
import { prepared } from "../../infra/db/prepared.js";
import type { KeyPairsTable, UsersTable } from "../../infra/db/schema.js";

export type UserRow = Selectable<UsersTable>;
export type KeyPairRow = Selectable<KeyPairsTable>;
export type NewUser = Omit<UserRow, "gcid">;

/**
 * Built and compiled once (infra/db/prepared.ts): with many callers each one's pair outlives the
 * authenticator's cache between its requests, and building the query cost more than running it.
 */
const activeKeyQuery = prepared(
  (db: Executor, _shape: null, [userKeyHash]: readonly [string]) =>
    db
      .selectFrom("keyPairs")
      .innerJoin("users", "users.id", "keyPairs.userId")
      .select([
        "keyPairs.id",
        "keyPairs.apiKeyHash",
        "keyPairs.scopes",
        "keyPairs.environment",
        "keyPairs.ipsWhitelist",
        "keyPairs.expiresAt",
        "users.id as userId",
        "users.gcid",
      ])
      .where("keyPairs.userKeyHash", "=", userKeyHash)
      .where("keyPairs.revokedAt", "is", null),
  () => "",
);

/** A column of `users`, as the code names it. */
export type UserColumn = keyof UserRow & string;

/** The columns a profile is made of (`toUserRecord`). */
export const PROFILE_COLUMNS = [
  "id",
  "gcid",
  "username",
  "firstName",
  "lastName",
  "isPrivate",
  "createdAt",
  "countryCode",
  "piLevel",
] as const satisfies readonly UserColumn[];
export type ProfileRow = Pick<UserRow, (typeof PROFILE_COLUMNS)[number]>;

/**
 * Users by internal id, with the columns the caller reads (the shape), compiled once per column
 * list and list length. `select *` spent about half its time making values nobody read (0200).
 */
const usersByIds = prepared(
  (db: Executor, columns: readonly UserColumn[], [ids]: readonly [readonly string[]]) =>
    db.selectFrom("users").select(columns).where("id", "in", ids),
  (columns) => columns.join(","),
);

export const identityRepository = (db: Executor) => ({
  async insertUser(user: NewUser): Promise<UserRow> {
    return db.insertInto("users").values(user).returningAll().executeTakeFirstOrThrow();
  },

  async findUserById(id: string): Promise<UserRow | undefined> {
    return db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async findUserByGcid(gcid: number): Promise<UserRow | undefined> {
    return db.selectFrom("users").selectAll().where("gcid", "=", gcid).executeTakeFirst();
  },

  /** `columns` of the users with these internal ids; unknown ids are absent. */
  async findUsersByIds<C extends UserColumn>(
    ids: readonly string[],
    columns: readonly C[],
  ): Promise<Pick<UserRow, C>[]> {
    if (ids.length === 0) return [];
    return (await usersByIds(db, columns, [ids])) as Pick<UserRow, C>[];
  },

  async findUsersByGcids(gcids: readonly number[]): Promise<UserRow[]> {
    if (gcids.length === 0) return [];
    return db.selectFrom("users").selectAll().where("gcid", "in", gcids).execute();
  },

  async findUsersByUsernames(usernames: readonly string[]): Promise<UserRow[]> {
    if (usernames.length === 0) return [];
    const lower = usernames.map((u) => u.toLowerCase());
    return db.selectFrom("users").selectAll().where("usernameLower", "in", lower).execute();
  },

  async findUserByUsername(username: string): Promise<UserRow | undefined> {
    return db.selectFrom("users").selectAll().where("usernameLower", "=", username.toLowerCase()).executeTakeFirst();
  },

  async setPasswordHash(userId: string, passwordHash: string): Promise<boolean> {
    const result = await db.updateTable("users").set({ passwordHash }).where("id", "=", userId).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async insertKeyPair(row: Insertable<KeyPairsTable>): Promise<void> {
    await db.insertInto("keyPairs").values(row).execute();
  },

  /** The key-pair check's lookup (authenticate.ts) when its cache does not hold the pair. */
  async findActiveKeyByUserKeyHash(userKeyHash: string) {
    return (await activeKeyQuery(db, null, [userKeyHash]))[0];
  },

  async listKeyPairs(userId: string): Promise<KeyPairRow[]> {
    return db
      .selectFrom("keyPairs")
      .selectAll()
      .where("userId", "=", userId)
      .orderBy("createdAt")
      .orderBy("id")
      .execute();
  },

  async findKeyPair(id: string): Promise<KeyPairRow | undefined> {
    return db.selectFrom("keyPairs").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async revokeKeyPair(id: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable("keyPairs")
      .set({ revokedAt: at })
      .where("id", "=", id)
      .where("revokedAt", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },
});
