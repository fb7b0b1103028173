import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { FALLBACK_AUTOCHECKPOINT_PAGES } from "../../src/infra/db/checkpointer.js";
import { openDatabase } from "../../src/infra/db/database.js";

/**
 * The background checkpointer (decision 0184): the server's connection no longer checkpoints at
 * 1,000 pages of log; a worker thread's connection copies committed pages into the file, and
 * everything committed is in the file, whole, after close.
 */
describe("SQLite background checkpoints", () => {
  const dir = mkdtempSync(join(tmpdir(), "sta-checkpoint-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("copies committed pages into the file from another thread, and the file is whole after close", async () => {
    const file = join(dir, "bg.db");
    const db = await openDatabase({ kind: "sqlite", url: file, synchronous: "normal", groupCommit: true });
    // (the camel-case plugin names the pragma's column)
    const [setting] = (await sql<{ walAutocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db.kysely)).rows;
    expect(setting?.walAutocheckpoint).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
    await sql`create table t (n integer primary key, v text not null)`.execute(db.kysely);
    // ~8 MB of log (2,000 pages): twice SQLite's own threshold, a tenth of the fallback.
    const rows = 4000;
    const text = "x".repeat(2000);
    await Promise.all(
      Array.from({ length: rows }, (_, n) =>
        db.transaction((trx) => sql`insert into t (n, v) values (${n}, ${text})`.execute(trx)),
      ),
    );
    // The server's connection never reached its threshold: only the worker can have filled the file.
    const deadline = Date.now() + 30_000;
    while (statSync(file).size < rows * 2000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(statSync(file).size).toBeGreaterThanOrEqual(rows * 2000);
    await db.close();

    const check = new Database(file, { readonly: true });
    try {
      expect(check.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(check.prepare("select count(*) as c, sum(n) as s from t").get()).toEqual({
        c: rows,
        s: (rows * (rows - 1)) / 2,
      });
    } finally {
      check.close();
    }
  });
});
