import type { Selectable } from "kysely";
import type { Executor } from "../../infra/db/executor.js";
import { prepared } from "../../infra/db/prepared.js";
import type { WatchlistItemsTable, WatchlistsTable } from "../../infra/db/schema.js";
import { lockRows } from "../../infra/db/transactions.js";

export type WatchlistRow = Selectable<WatchlistsTable>;
export type WatchlistItemRow = Selectable<WatchlistItemsTable>;
export type ItemKey = Pick<WatchlistItemRow, "itemType" | "itemId">;

const count = (row: { n: number | string | bigint } | undefined) => Number(row?.n ?? 0);

/** Runs on every demo order (RecentlyInvested): compiled once (infra/db/prepared.ts). */
const moveToTopQuery = prepared(
  (
    db,
    _: null,
    [reason, date, userId, builtin, itemType, itemId]: readonly [string, string, string, string, string, number],
  ) =>
    db
      .updateTable("watchlistItems")
      .set((eb) => ({
        itemRank: eb
          .selectFrom("watchlistItems as i")
          .select((m) => m(m.fn.min<number>("i.itemRank"), "-", m.lit(1)).as("r"))
          .whereRef("i.watchlistId", "=", "watchlistItems.watchlistId"),
        itemAddedReason: reason,
        itemAddedDate: date,
      }))
      .where("watchlistId", "=", (eb) =>
        eb.selectFrom("watchlists").select("id").where("userId", "=", userId).where("builtin", "=", builtin),
      )
      .where("itemType", "=", itemType)
      .where("itemId", "=", itemId)
      .returning("watchlistId"),
  () => "",
);

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
   * Row-locks every watchlist of the user, in id order, until commit (PostgreSQL; SQLite runs one
   * writer at a time anyway). Every write that touches several of a user's watchlists (a create,
   * a delete, ranks, the selected default) takes it first: they serialize per user, in one lock
   * order, so they cannot deadlock, and a create's count sees every committed one.
   */
  async lockOwner(userId: string): Promise<void> {
    await lockRows(db, db.selectFrom("watchlists").select("id").where("userId", "=", userId).orderBy("id"));
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

  /**
   * Puts an item on top of the user's builtin watchlist in one statement: inserted, or moved
   * when already there, with a sort key below every other item's (min - 1). Nothing else is
   * renumbered: the wire ranks 0..n-1 are computed on read (see `renumbered`). Returns the
   * watchlist's id, or undefined when the user has no such builtin watchlist yet.
   */
  async putOnTop(
    userId: string,
    builtin: string,
    item: Pick<WatchlistItemRow, "itemType" | "itemId" | "itemAddedReason" | "itemAddedDate">,
  ): Promise<string | undefined> {
    const row = await db
      .insertInto("watchlistItems")
      .columns(["watchlistId", "itemType", "itemId", "itemRank", "itemAddedReason", "itemAddedDate"])
      .expression((eb) =>
        eb
          .selectFrom("watchlists as w")
          .select((s) => [
            "w.id",
            // Typed casts: PostgreSQL cannot infer a bare parameter's type in a select list.
            s.cast<string>(s.val(item.itemType), "text").as("itemType"),
            s.cast<number>(s.val(item.itemId), "integer").as("itemId"),
            s
              .selectFrom("watchlistItems as i")
              .select((m) => m(m.fn.coalesce(m.fn.min<number>("i.itemRank"), m.lit(0)), "-", m.lit(1)).as("r"))
              .whereRef("i.watchlistId", "=", "w.id")
              .as("itemRank"),
            s.cast<string>(s.val(item.itemAddedReason), "text").as("itemAddedReason"),
            s.cast<string>(s.val(item.itemAddedDate), "text").as("itemAddedDate"),
          ])
          .where("w.userId", "=", userId)
          .where("w.builtin", "=", builtin),
      )
      .onConflict((oc) =>
        oc.columns(["watchlistId", "itemType", "itemId"]).doUpdateSet((eb) => ({
          itemRank: eb.ref("excluded.itemRank"),
          itemAddedReason: eb.ref("excluded.itemAddedReason"),
          itemAddedDate: eb.ref("excluded.itemAddedDate"),
        })),
      )
      .returning("watchlistId")
      .executeTakeFirst();
    return row?.watchlistId;
  },

  /**
   * Moves an item that is already in the user's builtin watchlist to the top (sort key min - 1),
   * in one statement that needs no transaction: the common case of RecentlyInvested, where a
   * user trades the same instruments again. false = not there (or no such watchlist).
   */
  async moveToTop(
    userId: string,
    builtin: string,
    item: Pick<WatchlistItemRow, "itemType" | "itemId" | "itemAddedReason" | "itemAddedDate">,
  ): Promise<boolean> {
    const moved = await moveToTopQuery(db, null, [
      item.itemAddedReason,
      item.itemAddedDate,
      userId,
      builtin,
      item.itemType,
      item.itemId,
    ]);
    return moved.length > 0;
  },

  /** Keeps the first `max` items (by sort key) and deletes the rest: an index seek, no renumbering. */
  async keepFirstItems(watchlistId: string, max: number): Promise<void> {
    await db
      .deleteFrom("watchlistItems")
      .where("watchlistId", "=", watchlistId)
      .where("itemRank", ">=", (eb) =>
        eb
          .selectFrom("watchlistItems")
          .select("itemRank")
          .where("watchlistId", "=", watchlistId)
          .orderBy("itemRank")
          .limit(1)
          .offset(max),
      )
      .execute();
  },
});

export const keyOf = (k: ItemKey) => `${k.itemType}:${k.itemId}`;
