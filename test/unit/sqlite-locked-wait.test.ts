import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/infra/db/database.js";
import { LOCKED_WAIT_MS } from "../../src/infra/db/sqlite-driver.js";

/**
 * Another connection (a CLI command, the snapshot pass's worker thread) may hold the file's write
 * lock for seconds. A write of the app waits for it without stopping the event loop, and a read
 * does not wait at all (decision 0186).
 */
describe("SQLite writes while another connection holds the write lock", () => {
  const dir = mkdtempSync(join(tmpdir(), "sta-locked-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([true, false])(
    "wait for it with the event loop free, and reads go on (group commit %s)",
    async (groupCommit) => {
      const file = join(dir, `locked-${groupCommit}.db`);
      const db = await openDatabase({ kind: "sqlite", url: file, synchronous: "normal", groupCommit });
      const other = new Database(file);
      try {
        await sql`create table t (n integer primary key)`.execute(db.kysely);
        await sql`insert into t (n) values (1)`.execute(db.kysely);
        other.exec("begin immediate");
        other.exec("insert into t (n) values (100)");
        const events: string[] = [];
        // Released from a timer: a write waiting inside SQLite (busy_timeout) would hold the event
        // loop until it gave up, this timer would run only then, and the write would have failed.
        setTimeout(() => {
          events.push("released");
          other.exec("commit");
        }, 150);
        const write = db
          .transaction((trx) => sql`insert into t (n) values (2)`.execute(trx))
          .then(() => events.push("written"));
        const single = sql`insert into t (n) values (3)`.execute(db.kysely).then(() => events.push("single written"));
        // A read while the lock is held: the committed state, at once.
        const read = await sql<{ n: number }>`select n from t order by n`.execute(db.kysely);
        events.push("read");
        expect(read.rows).toEqual([{ n: 1 }]);
        await Promise.all([write, single]);
        expect(events[0]).toBe("read");
        expect(events[1]).toBe("released");
        expect(new Set(events.slice(2))).toEqual(new Set(["written", "single written"]));
        const rows = await sql<{ n: number }>`select n from t order by n`.execute(db.kysely);
        expect(rows.rows.map((r) => r.n)).toEqual([1, 2, 3, 100]);
      } finally {
        other.close();
        await db.close();
      }
    },
  );

  it(
    "gives up after LOCKED_WAIT_MS with SQLite's busy error (a 503 at the edge)",
    async () => {
      const file = join(dir, "held.db");
      const db = await openDatabase({ kind: "sqlite", url: file, synchronous: "normal", groupCommit: true });
      const other = new Database(file);
      try {
        await sql`create table t (n integer primary key)`.execute(db.kysely);
        other.exec("begin immediate");
        await expect(db.transaction((trx) => sql`insert into t (n) values (2)`.execute(trx))).rejects.toMatchObject({
          code: "SQLITE_BUSY",
        });
        other.exec("rollback");
      } finally {
        other.close();
        await db.close();
      }
    },
    LOCKED_WAIT_MS * 3,
  );
});
