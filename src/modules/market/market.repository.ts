import { type Insertable, type Selectable, sql } from "kysely";
import type { Executor } from "../../infra/db/executor.js";
import type { InstrumentsTable } from "../../infra/db/schema.js";

export type InstrumentRow = Selectable<InstrumentsTable>;

/** `%` and `_` in user text are literals, not wildcards. */
const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export const marketRepository = (db: Executor) => ({
  async byIds(ids: readonly number[]): Promise<InstrumentRow[]> {
    if (ids.length === 0) return [];
    return db
      .selectFrom("instruments")
      .selectAll()
      .where("instrumentId", "in", [...ids])
      .execute();
  },

  async all(): Promise<InstrumentRow[]> {
    return db.selectFrom("instruments").selectAll().orderBy("instrumentId").execute();
  },

  async existingIds(): Promise<Set<number>> {
    const rows = await db.selectFrom("instruments").select("instrumentId").execute();
    return new Set(rows.map((r) => r.instrumentId));
  },

  async insertMany(rows: Insertable<InstrumentsTable>[]): Promise<void> {
    if (rows.length === 0) return;
    await db.insertInto("instruments").values(rows).execute();
  },

  /** Case-insensitive: symbol prefix or display-name substring; exact symbol first, then by symbol. */
  async search(text: string, limit: number, offset = 0): Promise<{ rows: InstrumentRow[]; total: number }> {
    const needle = text.trim().toLowerCase();
    const escaped = likeEscape(needle);
    const base = db
      .selectFrom("instruments")
      .where((eb) =>
        eb.or([
          sql<boolean>`${eb.ref("symbolLower")} like ${`${escaped}%`} escape '\\'`,
          sql<boolean>`${eb.ref("displayNameLower")} like ${`%${escaped}%`} escape '\\'`,
        ]),
      );
    const [{ total }] = (await base.select((eb) => eb.fn.countAll<number>().as("total")).execute()) as [
      { total: number | string },
    ];
    const rows = await base
      .selectAll()
      .orderBy((eb) => eb.case().when("symbolLower", "=", needle).then(0).else(1).end())
      .orderBy("symbolLower")
      .limit(limit)
      .offset(offset)
      .execute();
    return { rows, total: Number(total) };
  },
});
