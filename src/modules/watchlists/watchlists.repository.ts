import type { Selectable } from "kysely";
import type { Executor } from "../../infra/db/executor.js";
import type { WatchlistItemsTable, WatchlistsTable } from "../../infra/db/schema.js";

export type WatchlistRow = Selectable<WatchlistsTable>;
export type WatchlistItemRow = Selectable<WatchlistItemsTable>;
export type ItemKey = Pick<WatchlistItemRow, "itemType" | "itemId">;

const count = (row: { n: number | string | bigint } | undefined) => Number(row?.n ?? 0);

export const watchlistsRepository = (db: Executor) => ({
  async insert(row: WatchlistRow): Promise<void> {
    await db.insertInto("watchlists").values(row).execute();
  },

  /** Inserts unless the user already has this builtin watchlist; safe under concurrency. */
  async insertBuiltinIfMissing(row: WatchlistRow): Promise<void> {
    await db
      .insertInto("watchlists")
      .values(row)
      .onConflict((oc) => oc.columns(["userId", "builtin"]).doNothing())
      .execute();
  },

  async findById(id: string): Promise<WatchlistRow | undefined> {
    return db.selectFrom("watchlists").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async findBuiltin(userId: string, builtin: string): Promise<WatchlistRow | undefined> {
    return db
      .selectFrom("watchlists")
      .selectAll()
      .where("userId", "=", userId)
      .where("builtin", "=", builtin)
      .executeTakeFirst();
  },

  /** A user's watchlists in display order: rank, then creation. */
  async listForUser(userId: string): Promise<WatchlistRow[]> {
    return db
      .selectFrom("watchlists")
      .selectAll()
      .where("userId", "=", userId)
      .orderBy("watchlistRank")
      .orderBy("createdAt")
      .orderBy("id")
      .execute();
  },

  async listPublicByGcid(gcid: number): Promise<WatchlistRow[]> {
    return db
      .selectFrom("watchlists")
      .selectAll()
      .where("gcid", "=", gcid)
      .where("isPublic", "=", 1)
      .orderBy("watchlistRank")
      .orderBy("createdAt")
      .orderBy("id")
      .execute();
  },

  async countOwn(userId: string): Promise<number> {
    return count(
      await db
        .selectFrom("watchlists")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("userId", "=", userId)
        .where("builtin", "is", null)
        .executeTakeFirst(),
    );
  },

  async maxRank(userId: string): Promise<number | null> {
    const row = await db
      .selectFrom("watchlists")
      .select((eb) => eb.fn.max("watchlistRank").as("m"))
      .where("userId", "=", userId)
      .executeTakeFirst();
    return row?.m === null || row?.m === undefined ? null : Number(row.m);
  },

  async hasSelectedDefault(userId: string): Promise<boolean> {
    const row = await db
      .selectFrom("watchlists")
      .select("id")
      .where("userId", "=", userId)
      .where("isUserSelectedDefault", "=", 1)
      .executeTakeFirst();
    return row !== undefined;
  },

  /**
   * Row-locks the user's builtin watchlists until commit: concurrent creates of one user
   * serialize here, so the count that follows sees every committed one (PostgreSQL; SQLite
   * runs one writer at a time anyway).
   */
  async lockOwner(userId: string): Promise<void> {
    await db
      .updateTable("watchlists")
      .set((eb) => ({ updatedAt: eb.ref("updatedAt") }))
      .where("userId", "=", userId)
      .where("builtin", "is not", null)
      .execute();
  },

  /** Moves every other watchlist of the user at `rank` or after it one place down. */
  async shiftRanksFrom(userId: string, rank: number, exceptId: string): Promise<void> {
    await db
      .updateTable("watchlists")
      .set((eb) => ({ watchlistRank: eb("watchlistRank", "+", 1) }))
      .where("userId", "=", userId)
      .where("watchlistRank", ">=", rank)
      .where("id", "!=", exceptId)
      .execute();
  },

  async update(
    id: string,
    changes: Partial<Pick<WatchlistRow, "name" | "watchlistRank" | "isPublic" | "updatedAt">>,
  ): Promise<void> {
    await db.updateTable("watchlists").set(changes).where("id", "=", id).execute();
  },

  /**
   * One statement flips every watchlist of the user: concurrent calls serialize on the rows,
   * so exactly one selected default remains whoever wins.
   */
  async selectDefault(userId: string, id: string, at: string): Promise<void> {
    await db
      .updateTable("watchlists")
      .set((eb) => ({
        isUserSelectedDefault: eb.case().when("id", "=", id).then(1).else(0).end(),
        updatedAt: eb.case().when("id", "=", id).then(at).else(eb.ref("updatedAt")).end(),
      }))
      .where("userId", "=", userId)
      .execute();
  },

  async delete(id: string): Promise<void> {
    await db.deleteFrom("watchlistItems").where("watchlistId", "=", id).execute();
    await db.deleteFrom("watchlists").where("id", "=", id).execute();
  },

  // --- items ---

  async countItems(watchlistId: string): Promise<number> {
    return count(
      await db
        .selectFrom("watchlistItems")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("watchlistId", "=", watchlistId)
        .executeTakeFirst(),
    );
  },

  /** Item counts of several watchlists at once (absent = 0). */
  async countItemsOf(watchlistIds: readonly string[]): Promise<Map<string, number>> {
    if (watchlistIds.length === 0) return new Map();
    const rows = await db
      .selectFrom("watchlistItems")
      .select(["watchlistId", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("watchlistId", "in", watchlistIds)
      .groupBy("watchlistId")
      .execute();
    return new Map(rows.map((r) => [r.watchlistId, Number(r.n)]));
  },

  async maxItemRank(watchlistId: string): Promise<number | null> {
    const row = await db
      .selectFrom("watchlistItems")
      .select((eb) => eb.fn.max("itemRank").as("m"))
      .where("watchlistId", "=", watchlistId)
      .executeTakeFirst();
    return row?.m === null || row?.m === undefined ? null : Number(row.m);
  },

  /** Items in display order: rank, then when added, then id; one page of them. */
  async pageItems(watchlistId: string, offset: number, limit: number): Promise<WatchlistItemRow[]> {
    return db
      .selectFrom("watchlistItems")
      .selectAll()
      .where("watchlistId", "=", watchlistId)
      .orderBy("itemRank")
      .orderBy("itemAddedDate")
      .orderBy("itemType")
      .orderBy("itemId")
      .offset(offset)
      .limit(limit)
      .execute();
  },

  async existingKeys(watchlistId: string, keys: readonly ItemKey[]): Promise<ItemKey[]> {
    if (keys.length === 0) return [];
    const ids = [...new Set(keys.map((k) => k.itemId))];
    const rows = await db
      .selectFrom("watchlistItems")
      .select(["itemType", "itemId"])
      .where("watchlistId", "=", watchlistId)
      .where("itemId", "in", ids)
      .execute();
    const wanted = new Set(keys.map(keyOf));
    return rows.filter((r) => wanted.has(keyOf(r)));
  },

  /** Adds the items that are not there yet; an existing item is left exactly as it was. */
  async insertItems(rows: readonly WatchlistItemRow[]): Promise<void> {
    if (rows.length === 0) return;
    await db
      .insertInto("watchlistItems")
      .values([...rows])
      .onConflict((oc) => oc.columns(["watchlistId", "itemType", "itemId"]).doNothing())
      .execute();
  },

  async updateItem(
    watchlistId: string,
    key: ItemKey,
    changes: Partial<Pick<WatchlistItemRow, "itemRank" | "itemAddedReason" | "itemAddedDate">>,
  ): Promise<number> {
    const result = await db
      .updateTable("watchlistItems")
      .set(changes)
      .where("watchlistId", "=", watchlistId)
      .where("itemType", "=", key.itemType)
      .where("itemId", "=", key.itemId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  },

  async deleteItem(watchlistId: string, key: ItemKey): Promise<number> {
    const result = await db
      .deleteFrom("watchlistItems")
      .where("watchlistId", "=", watchlistId)
      .where("itemType", "=", key.itemType)
      .where("itemId", "=", key.itemId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Moves every other item at `rank` or after it one place down, making room at `rank`. */
  async shiftItemRanksFrom(watchlistId: string, rank: number, except: ItemKey): Promise<void> {
    await db
      .updateTable("watchlistItems")
      .set((eb) => ({ itemRank: eb("itemRank", "+", 1) }))
      .where("watchlistId", "=", watchlistId)
      .where("itemRank", ">=", rank)
      .where((eb) => eb.or([eb("itemType", "!=", except.itemType), eb("itemId", "!=", except.itemId)]))
      .execute();
  },

  /** Moves every item one place down (RecentlyInvested puts the newest first). */
  async shiftRanks(watchlistId: string): Promise<void> {
    await db
      .updateTable("watchlistItems")
      .set((eb) => ({ itemRank: eb("itemRank", "+", 1) }))
      .where("watchlistId", "=", watchlistId)
      .execute();
  },

  async deleteItemsFromRank(watchlistId: string, rank: number): Promise<void> {
    await db
      .deleteFrom("watchlistItems")
      .where("watchlistId", "=", watchlistId)
      .where("itemRank", ">=", rank)
      .execute();
  },
});

export const keyOf = (k: ItemKey) => `${k.itemType}:${k.itemId}`;
