import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { commitGroup, type TransactionRunner } from "../../src/infra/db/commit-group.js";
import { type Db, openDatabase } from "../../src/infra/db/database.js";
import type { Executor } from "../../src/infra/db/executor.js";
import type { Database as Schema } from "../../src/infra/db/schema.js";

/**
 * Group commit on a real SQLite file (decision 0172): works asked for together share one commit,
 * each in its own savepoint, and no caller is answered before that commit.
 */
describe("SQLite group commit", () => {
  const dir = mkdtempSync(join(tmpdir(), "sta-group-"));
  const file = join(dir, "group.db");
  let db: Db;
  /** A second connection: it sees only what is committed. */
  let outside: Database.Database;

  const insert = (x: Executor, n: number) => sql`insert into t (n) values (${n})`.execute(x);
  const committed = () => (outside.prepare("select n from t order by n").all() as { n: number }[]).map((r) => r.n);
  const within = async (x: Executor) =>
    ((await sql<{ n: number }>`select n from t order by n`.execute(x)).rows as { n: number }[]).map((r) => r.n);

  beforeEach(async () => {
    await db?.close();
    outside?.close();
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    db = await openDatabase({ kind: "sqlite", url: file, synchronous: "normal", groupCommit: true });
    await sql`create table t (n integer primary key)`.execute(db.kysely);
    await sql`create table parent (id integer primary key)`.execute(db.kysely);
    await sql`create table child (id integer primary key, parent_id integer not null references parent (id))`.execute(
      db.kysely,
    );
    await sql`create table account (id integer primary key, cash integer not null)`.execute(db.kysely);
    outside = new Database(file, { readonly: true });
  });
  afterAll(async () => {
    await db?.close();
    outside?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers each caller only once the commit it shares is done", async () => {
    let firstAnswered = false;
    const seenBySecond: { answered: boolean; committed: number[]; own: number[] }[] = [];
    const first = db.transaction((trx) => insert(trx, 1)).then(() => (firstAnswered = true));
    const second = db.transaction(async (trx) => {
      await insert(trx, 2);
      seenBySecond.push({ answered: firstAnswered, committed: committed(), own: await within(trx) });
    });
    await Promise.all([first, second]);
    // The second ran after the first, in the same transaction: it saw the first's row, which was
    // not committed yet, and the first had not been answered.
    expect(seenBySecond).toEqual([{ answered: false, committed: [], own: [1, 2] }]);
    expect(committed()).toEqual([1, 2]);
  });

  it("a work that throws loses its own writes only, and its caller gets its error", async () => {
    const boom = new Error("the second work fails after writing");
    const results = await Promise.allSettled([
      db.transaction((trx) => insert(trx, 1)),
      db.transaction(async (trx) => {
        await insert(trx, 2);
        throw boom;
      }),
      db.transaction(async (trx) => {
        await insert(trx, 3);
        return within(trx);
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toBe(boom);
    // The third ran after the second was rolled back to its savepoint.
    expect((results[2] as PromiseFulfilledResult<number[]>).value).toEqual([1, 3]);
    expect(committed()).toEqual([1, 3]);
  });

  it("guarded debits in one batch see the cash the earlier ones left: exactly those that fit pass", async () => {
    await sql`insert into account (id, cash) values (1, 100)`.execute(db.kysely);
    const debit = (trx: Executor) =>
      sql<{ cash: number }>`update account set cash = cash - 30 where id = 1 and cash >= 30 returning cash`
        .execute(trx)
        .then((r) => {
          if (r.rows.length === 0) throw new Error("not enough cash");
          return (r.rows[0] as { cash: number }).cash;
        });
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => db.transaction(debit)));
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : "refused"))).toEqual([
      70,
      40,
      10,
      "refused",
      "refused",
    ]);
    expect(outside.prepare("select cash from account").get()).toEqual({ cash: 10 });
  });

  it("when the shared commit fails, no caller hears done and nothing is written", async () => {
    await sql`insert into parent (id) values (1)`.execute(db.kysely);
    const results = await Promise.allSettled([
      db.transaction((trx) => insert(trx, 1)),
      // A deferred foreign key is checked at the commit: the commit itself fails.
      db.transaction(async (trx) => {
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        await sql`insert into child (id, parent_id) values (1, 42)`.execute(trx);
      }),
      db.transaction((trx) => insert(trx, 3)),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    for (const r of results) expect(String((r as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(committed()).toEqual([]);
    expect(outside.prepare("select count(*) as n from child").get()).toEqual({ n: 0 });
  });

  it("when SQLite ends the whole transaction under a work, every caller gets that work's error", async () => {
    const ioError = Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR" });
    const results = await Promise.allSettled([
      db.transaction((trx) => insert(trx, 1)),
      db.transaction(async (trx) => {
        await insert(trx, 2);
        // What SQLite does on an I/O error or a full disk: the transaction is gone.
        await sql`rollback`.execute(trx);
        throw ioError;
      }),
      db.transaction((trx) => insert(trx, 3)),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    for (const r of results) expect((r as PromiseRejectedResult).reason).toBe(ioError);
    expect(committed()).toEqual([]);
    // The connection is usable again.
    await db.transaction((trx) => insert(trx, 4));
    expect(committed()).toEqual([4]);
  });

  it("a write without a transaction of its own joins the group and is answered after its commit", async () => {
    let transactionAnswered = false;
    const seen: { answered: boolean; committed: number[] }[] = [];
    const tx = db.transaction((trx) => insert(trx, 1)).then(() => (transactionAnswered = true));
    const write = db.write(async (x) => {
      await insert(x, 2);
      seen.push({ answered: transactionAnswered, committed: committed() });
    });
    await Promise.all([tx, write]);
    expect(seen).toEqual([{ answered: false, committed: [] }]);
    expect(committed()).toEqual([1, 2]);
  });

  it("with SQLITE_GROUP_COMMIT off, each transaction commits on its own before the next runs", async () => {
    const own = await openDatabase({ kind: "sqlite", url: file, synchronous: "normal", groupCommit: false });
    try {
      const seen: number[][] = [];
      await Promise.all([
        own.transaction((trx) => insert(trx, 1)),
        own.transaction(async (trx) => {
          seen.push(committed());
          await insert(trx, 2);
        }),
      ]);
      expect(seen).toEqual([[1]]);
      expect(committed()).toEqual([1, 2]);
    } finally {
      await own.close();
    }
  });

  type Step = { kind: "ok" | "writeThenThrow" | "throwFirst"; n: number };
  const steps = fc.uniqueArray(
    fc.record({ kind: fc.constantFrom("ok", "writeThenThrow", "throwFirst"), n: fc.integer({ min: 1, max: 10_000 }) }),
    { minLength: 1, maxLength: 40, selector: (s) => s.n },
  );

  it("property: whatever the mix and the batch size, exactly the works that succeed are written, each answered with its own outcome", async () => {
    const kysely = db.kysely as Kysely<Schema>;
    await fc.assert(
      fc.asyncProperty(steps, fc.integer({ min: 1, max: 8 }), async (plan: Step[], maxGroup) => {
        await sql`delete from t`.execute(kysely);
        const run: TransactionRunner = commitGroup(kysely, maxGroup);
        const results = await Promise.allSettled(
          plan.map((step) =>
            run(async (trx) => {
              if (step.kind === "throwFirst") throw new Error(`refused ${step.n}`);
              await insert(trx, step.n);
              if (step.kind === "writeThenThrow") throw new Error(`failed ${step.n}`);
              return step.n;
            }),
          ),
        );
        results.forEach((r, i) => {
          const step = plan[i]!;
          if (step.kind === "ok") expect(r).toEqual({ status: "fulfilled", value: step.n });
          else expect((r as PromiseRejectedResult).reason.message).toMatch(new RegExp(` ${step.n}$`));
        });
        const expected = plan
          .filter((s) => s.kind === "ok")
          .map((s) => s.n)
          .sort((a, b) => a - b);
        expect(committed()).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });
});
