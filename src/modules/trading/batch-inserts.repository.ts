import type { Insertable } from "kysely";
import type { Executor } from "../../infra/db/executor.js";
import { prepared } from "../../infra/db/prepared.js";
import type { DemoOrdersTable, DemoPositionsTable } from "../../infra/db/schema.js";
import { ORDER_COLUMNS, POSITION_COLUMNS } from "./trading.repository.js";

/**
 * Many orders or positions in one statement (copy trading's batched copy opens, decision 0162),
 * compiled once per row count (infra/db/prepared.ts): the statement takes one list per column, so
 * its SQL depends only on how many rows it writes. Every listed column is written.
 */
const rowsOf = (columns: readonly string[], lists: readonly (readonly unknown[])[]) =>
  Array.from({ length: lists[0]?.length ?? 0 }, (_, i) =>
    Object.fromEntries(columns.map((c, ci) => [c, lists[ci]![i]])),
  );
const listsOf = (columns: readonly string[], rows: readonly object[]) =>
  columns.map((c) => rows.map((r) => (r as Record<string, unknown>)[c] ?? null));

/** A copy's position also names its mirror and the position it copies. */
const COPY_POSITION_COLUMNS = [...POSITION_COLUMNS, "mirrorId", "parentPositionId"] as const;

const Q = {
  insertOrders: prepared(
    (db, _: null, lists: readonly (readonly unknown[])[]) =>
      db
        .insertInto("demoOrders")
        .values(rowsOf(ORDER_COLUMNS, lists) as Insertable<DemoOrdersTable>[])
        .returning(["orderId", "token"]),
    () => "",
  ),
  insertPositions: prepared(
    (db, _: null, lists: readonly (readonly unknown[])[]) =>
      db.insertInto("demoPositions").values(rowsOf(COPY_POSITION_COLUMNS, lists) as Insertable<DemoPositionsTable>[]),
    () => "",
  ),
};

/** Rows per statement: 22 columns × 400 rows stay under both engines' limits on bound values. */
export const BATCH_ROWS = 400;

export const batchInserts = (db: Executor) => ({
  /** Inserts the orders; returns each one's id by its token (tokens must differ within the call). */
  async insertOrders(rows: readonly Insertable<DemoOrdersTable>[]): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    for (let i = 0; i < rows.length; i += BATCH_ROWS) {
      const slice = rows.slice(i, i + BATCH_ROWS);
      for (const r of await Q.insertOrders(db, null, listsOf(ORDER_COLUMNS, slice)))
        ids.set(String(r.token), Number(r.orderId));
    }
    return ids;
  },

  async insertPositions(rows: readonly (Insertable<DemoPositionsTable> & { positionId: number })[]): Promise<void> {
    for (let i = 0; i < rows.length; i += BATCH_ROWS) {
      await Q.insertPositions(db, null, listsOf(COPY_POSITION_COLUMNS, rows.slice(i, i + BATCH_ROWS)));
    }
  },
});
