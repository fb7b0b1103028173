import {
  CamelCasePlugin,
  type CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/infra/db/schema.js";
import { ordersRepository } from "../../src/modules/trading/orders/orders.repository.js";
import { type Engine, engines, type Harness, startHarness } from "../support/harness.js";

/**
 * The SQL `ordersRepository` runs for the order book's pending reads, compiled for `engine` as the
 * app's Kysely compiles it (camel-case plugin), without running it.
 */
async function pendingQueries(engine: Engine): Promise<CompiledQuery[]> {
  const compiled: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => (engine === "sqlite" ? new SqliteAdapter() : new PostgresAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => (engine === "sqlite" ? new SqliteIntrospector(k) : new PostgresIntrospector(k)),
      createQueryCompiler: () => (engine === "sqlite" ? new SqliteQueryCompiler() : new PostgresQueryCompiler()),
    },
    plugins: [new CamelCasePlugin()],
    log: (event) => {
      if (event.level === "query") compiled.push(event.query);
    },
  });
  const repo = ordersRepository(db);
  await repo.pendingOf("a-user");
  await repo.allPending();
  await repo.duePending("2026-01-01T00:00:00.000Z", 10);
  await db.destroy();
  return compiled;
}

describe.each(engines())("the order book's pending index on %s (decision 0208)", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
  });
  afterAll(async () => h.close());

  it("holds pending orders only: the status index of every order is gone", async () => {
    const names =
      engine === "sqlite"
        ? await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
            where type = 'index' and tbl_name = 'demo_orders'`.execute(h.deps.db.kysely)
        : await sql<{ name: string; sql: string }>`select indexname as name, indexdef as sql from pg_indexes
            where tablename = 'demo_orders'`.execute(h.deps.db.kysely);
    const byName = new Map(names.rows.map((r) => [r.name, r.sql]));
    expect(byName.has("demo_orders_status")).toBe(false);
    expect(byName.get("demo_orders_pending")).toMatch(/where \(?status_id = 0\)?/i);
  });

  it("is the index the pending reads are planned with", async () => {
    const queries = await pendingQueries(engine);
    expect(queries).toHaveLength(3);
    for (const query of queries) {
      // Written into the SQL, not bound: SQLite would prepare a bound one again at every call.
      expect(query.sql).toMatch(/"status_id" = 0\b/);
      const plan =
        engine === "sqlite"
          ? (
              await h.deps.db.kysely.executeQuery<{ detail: string }>({
                ...query,
                sql: `explain query plan ${query.sql}`,
              })
            ).rows.map((r) => r.detail)
          : await h.deps.db.kysely.transaction().execute(async (trx) => {
              // With sequential scans priced out, an empty table is planned as a large one would be.
              await sql`set local enable_seqscan = off`.execute(trx);
              const rows = await trx.executeQuery<{ "QUERY PLAN": string }>({
                ...query,
                sql: `explain ${query.sql}`,
              });
              return rows.rows.map((r) => r["QUERY PLAN"]);
            });
      expect(plan.join("\n"), query.sql).toContain("demo_orders_pending");
    }
  });
});
