import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/infra/db/database.js";

/**
 * Reads outside a transaction run on the writer while no transaction holds it, on the reader
 * otherwise (decisions 0186, 0197): either way they see the last commit, never a transaction's
 * uncommitted writes, and they never wait for a transaction.
 */
describe("SQLite reads outside a transaction", () => {
  const dir = mkdtempSync(join(tmpdir(), "sta-idle-reads-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([true, false])(
    "see each commit at once and no open transaction's writes (group commit %s)",
    async (groupCommit) => {
      const db = await openDatabase({
        kind: "sqlite",
        url: join(dir, `reads-${groupCommit}.db`),
        synchronous: "normal",
        groupCommit,
      });
      const values = async () =>
        (await sql<{ n: number }>`select n from t order by n`.execute(db.kysely)).rows.map((r) => r.n);
      try {
        await sql`create table t (n integer primary key)`.execute(db.kysely);
        for (let n = 1; n <= 20; n++) {
          await db.transaction((trx) => sql`insert into t (n) values (${n})`.execute(trx));
          // Read right after each commit, the writer idle: the new row is there.
          expect((await values()).at(-1)).toBe(n);
        }
        let release: () => void = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        let inserted: () => void = () => {};
        const insertedYet = new Promise<void>((resolve) => {
          inserted = resolve;
        });
        const open = db.transaction(async (trx) => {
          await sql`insert into t (n) values (100)`.execute(trx);
          inserted();
          await held;
        });
        await insertedYet;
        // The writer holds an uncommitted row: a read outside the transaction sees the last commit.
        const during = await values();
        expect(during).toHaveLength(20);
        expect(during).not.toContain(100);
        release();
        await open;
        expect((await values()).at(-1)).toBe(100);
      } finally {
        await db.close();
      }
    },
  );
});
