import type { Db } from "../../infra/db/database.js";
import type { Executor } from "../../infra/db/executor.js";
import { dumpWorld, replaceWorld, type WorldRows } from "../../infra/db/world.js";

export interface SnapshotSummary {
  name: string;
  createdAt: string;
  tables: number;
  rows: number;
}

export const sandboxRepository = (db: Executor) => ({
  async saveSnapshot(summary: SnapshotSummary, rows: WorldRows): Promise<void> {
    const data = JSON.stringify(rows);
    await db
      .insertInto("sandboxSnapshots")
      .values({ ...summary, data })
      .onConflict((oc) => oc.column("name").doUpdateSet({ ...summary, data }))
      .execute();
  },

  async listSnapshots(): Promise<SnapshotSummary[]> {
    return db.selectFrom("sandboxSnapshots").select(["name", "createdAt", "tables", "rows"]).orderBy("name").execute();
  },

  /** Every key pair (revoked or not): a reset tells every instance to forget those it removes. */
  async keyPairs(): Promise<{ id: string; userId: string }[]> {
    return db.selectFrom("keyPairs").select(["id", "userId"]).execute();
  },

  async loadSnapshot(name: string): Promise<WorldRows | undefined> {
    const row = await db.selectFrom("sandboxSnapshots").select("data").where("name", "=", name).executeTakeFirst();
    return row ? (JSON.parse(row.data) as WorldRows) : undefined;
  },
});

/** The world's rows and their replacement (src/infra/db/world.ts), for the world controls. */
export const worldStore = (db: Db) => ({
  dump: () => dumpWorld(db),
  replace: (rows: WorldRows, progress: (step: string, rows: number) => void) => replaceWorld(db, rows, progress),
});

export type { WorldRows };
