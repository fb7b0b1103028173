import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/infra/db/database.js";

/**
 * A server and a CLI command share one SQLite file. A transaction that read before the other
 * process wrote must not fail at its own first write (a deferred `begin` fails there with
 * SQLITE_BUSY at once): our transactions take the write lock when they begin.
 */
describe("SQLite transactions against another process's writes", () => {
  const dir = mkdtempSync(join(tmpdir(), "sta-immediate-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([true, false])("hold the write lock from their start (group commit %s)", async (groupCommit) => {
    const file = join(dir, `shared-${groupCommit}.db`);
    const db = await openDatabase({ kind: "sqlite", url: file, synchronous: "normal", groupCommit });
    const other = new Database(file);
    other.pragma("busy_timeout = 0");
    try {
      await sql`create table t (n integer primary key)`.execute(db.kysely);
      let otherWrite: unknown;
      await db.transaction(async (trx) => {
        await sql`select count(*) from t`.execute(trx);
        // The other process tries to write while this transaction is open, past its read.
        try {
          other.prepare("insert into t (n) values (1)").run();
          otherWrite = "written";
        } catch (error) {
          otherWrite = (error as { code?: string }).code;
        }
        await sql`insert into t (n) values (2)`.execute(trx);
      });
      expect(otherWrite).toBe("SQLITE_BUSY");
      expect(other.prepare("select n from t order by n").all()).toEqual([{ n: 2 }]);
      // Once it committed, the other process writes.
      other.prepare("insert into t (n) values (1)").run();
      expect(other.prepare("select count(*) as c from t").get()).toEqual({ c: 2 });
    } finally {
      other.close();
      await db.close();
    }
  });
});
