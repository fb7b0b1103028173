import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DomainEvent } from "../../src/core/events.js";
import { TRANSACTION_ATTEMPTS } from "../../src/infra/db/transactions.js";
import { transact } from "../../src/modules/context.js";
import { type Engine, engines, type Harness, startHarness } from "../support/harness.js";

/** A driver error as node-postgres reports PostgreSQL's SQLSTATE. */
const sqlState = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code });

describe.each(engines())("transact retries what PostgreSQL aborts for a race (%s)", (engine: Engine) => {
  let h: Harness;
  const published: DomainEvent[][] = [];
  beforeAll(async () => {
    // SQLite's group commit (decision 0172) shares one transaction among many works and never sees
    // these PostgreSQL codes; the retrying runner is what SQLite runs with group commit off.
    h = await startHarness(engine, { env: { SQLITE_GROUP_COMMIT: "off" } });
    const publish = h.deps.bus.publish.bind(h.deps.bus);
    h.deps.bus.publish = async (events) => {
      published.push([...events]);
      return publish(events);
    };
  });
  afterAll(async () => h?.close());

  it("reruns a transaction that lost to a deadlock (40P01) or a serialization failure (40001)", async () => {
    for (const code of ["40P01", "40001"]) {
      published.length = 0;
      let attempts = 0;
      const result = await transact(h.deps, async (_trx, record) => {
        attempts += 1;
        record({ type: "TestEvent", attempt: attempts } as unknown as DomainEvent);
        if (attempts < 3) throw sqlState(code);
        return "done";
      });
      expect(result).toBe("done");
      expect(attempts).toBe(3);
      // Only the committed attempt's events are published, once.
      expect(published).toEqual([[{ type: "TestEvent", attempt: 3 }]]);
    }
  });

  it("gives up after a bounded number of attempts, and never retries other errors", async () => {
    let attempts = 0;
    await expect(
      transact(h.deps, async () => {
        attempts += 1;
        throw sqlState("40P01");
      }),
    ).rejects.toMatchObject({ code: "40P01" });
    expect(attempts).toBe(TRANSACTION_ATTEMPTS);
    attempts = 0;
    await expect(
      transact(h.deps, async () => {
        attempts += 1;
        throw sqlState("23505");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(attempts).toBe(1);
  });
});

// Only PostgreSQL deadlocks (SQLite has one writer): this suite runs where its server is.
describe.each(engines().filter((e) => e === "postgres"))("transact and a real deadlock (%s)", (engine: Engine) => {
  let h: Harness;
  beforeAll(async () => {
    // SQLite's group commit (decision 0172) shares one transaction among many works and never sees
    // these PostgreSQL codes; the retrying runner is what SQLite runs with group commit off.
    h = await startHarness(engine, { env: { SQLITE_GROUP_COMMIT: "off" } });
  });
  afterAll(async () => h?.close());

  it("survives a real deadlock between two transactions", async () => {
    const db = h.deps.db.kysely;
    await sql`create table deadlock_probe (id integer primary key, n integer not null)`.execute(db);
    await sql`insert into deadlock_probe values (1, 0), (2, 0)`.execute(db);
    let bothLocked: () => void = () => {};
    let locked = 0;
    const barrier = new Promise<void>((resolve) => {
      bothLocked = resolve;
    });
    const crossing = (first: number, second: number) =>
      transact(h.deps, async (trx) => {
        await sql`update deadlock_probe set n = n + 1 where id = ${first}`.execute(trx);
        locked += 1;
        if (locked === 2) bothLocked();
        // The first attempt of each waits for the other to hold its first row: a lock cycle.
        await Promise.race([barrier, new Promise((r) => setTimeout(r, 2000))]);
        await sql`update deadlock_probe set n = n + 1 where id = ${second}`.execute(trx);
      });
    await Promise.all([crossing(1, 2), crossing(2, 1)]);
    const rows = await sql<{ n: number }>`select n from deadlock_probe order by id`.execute(db);
    // Each transaction committed exactly once: every row was incremented twice.
    expect(rows.rows.map((r) => r.n)).toEqual([2, 2]);
  }, 20_000);
});
