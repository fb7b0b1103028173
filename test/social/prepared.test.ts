import fc from "fast-check";
import type { KyselyPlugin } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Executor } from "../../src/infra/db/executor.js";
import { insertShape, prepared, rowFrom } from "../../src/infra/db/prepared.js";
import { splitDriverOf } from "../../src/infra/db/sqlite-driver.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

// The prepared read queries of the discussion path (infra/db/prepared.ts): compiled once per
// shape, they must return exactly what the same query built afresh returns, on both engines.
describe.each(engines())("prepared queries on %s", (engine) => {
  let h: Harness;
  let db: Executor;
  const userIds: string[] = [];
  beforeAll(async () => {
    h = await startHarness(engine);
    db = h.deps.db.kysely;
    for (let i = 0; i < 6; i++) userIds.push((await h.user(["feed:read"])).user.id);
  });
  afterAll(async () => h.close());

  const build = (d: Executor, anon: boolean, [ids, name, limit]: readonly [readonly string[], string, number]) =>
    d
      .selectFrom("users")
      .select(["id", "username"])
      .where("id", "in", ids)
      .$if(!anon, (q) => q.where("username", "!=", name))
      .where("isPrivate", "=", 0)
      .orderBy("username")
      .limit(limit);
  const query = prepared(build, (anon: boolean) => String(anon));

  it("returns what the query built afresh returns, for any values and list lengths", async () => {
    const names = new Map<string, string>();
    for (const r of await db.selectFrom("users").select(["id", "username"]).execute()) names.set(r.id, r.username);
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(userIds, { minLength: 1 }),
        fc.boolean(),
        fc.constantFrom(...userIds),
        fc.integer({ min: 1, max: 8 }),
        async (ids, anon, excluded, limit) => {
          const values = [ids, names.get(excluded)!, limit] as const;
          const fresh = await build(db, anon, values).execute();
          const fromTemplate = await query(db, anon, values);
          expect(fromTemplate).toEqual(fresh);
          if (!anon) expect(fromTemplate.map((r) => r.id)).not.toContain(excluded);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("compiles a shape once, and still runs every execution through the executor's plugins", async () => {
    let compiled = 0;
    let results = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        compiled += 1;
        return args.node;
      },
      transformResult: async (args) => {
        results += 1;
        return args.result;
      },
    };
    const counted = h.deps.db.kysely.withPlugin(counting);
    const q = prepared(build, (anon: boolean) => String(anon));
    for (const ids of [userIds.slice(0, 2), userIds.slice(2, 4), userIds.slice(4, 6)]) {
      const rows = await q(counted, false, [ids, "nobody", 10]);
      expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    }
    expect(compiled).toBe(1);
    expect(results).toBe(3);
    // Another list length or shape is another template.
    await q(counted, false, [userIds.slice(0, 3), "nobody", 10]);
    await q(counted, true, [userIds.slice(0, 3), "nobody", 10]);
    expect(compiled).toBe(3);
    expect(results).toBe(5);
  });

  it("runs inside a transaction, seeing its uncommitted writes", async () => {
    const rows = await db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable("users").set({ isPrivate: 1 }).where("id", "=", userIds[0]!).execute();
        const seen = await query(trx, true, [userIds.slice(0, 2), "", 10]);
        throw Object.assign(new Error("rollback"), { seen });
      })
      .catch((e: { seen: { id: string }[] }) => e.seen);
    expect(rows.map((r) => r.id)).toEqual([userIds[1]]);
    const after = await query(db, true, [userIds.slice(0, 2), "", 10]);
    expect(after.map((r) => r.id).sort()).toEqual(userIds.slice(0, 2).sort());
  });

  // Decision 0202: on SQLite a prepared statement runs at once on the driver's connection, its
  // rows renamed as the camel-case plugin renames them; the answers are Kysely's, column for column.
  const profile = prepared(
    (d: Executor, _: null, [ids]: readonly [readonly string[]]) =>
      d
        .selectFrom("users")
        .select(["id", "firstName", "lastName", "isPrivate", "createdAt"])
        .select((eb) => eb.val(1).as("oneMore"))
        .where("id", "in", ids)
        .orderBy("id"),
    () => "",
  );
  const follow = prepared(
    (d: Executor, columns: readonly string[], values: readonly unknown[]) =>
      d.insertInto("userFollows").values(rowFrom(columns, values)).returning(["followerId", "followeeId"]),
    (columns) => columns.join(),
  );

  it("answers with Kysely's rows and names, in and out of a transaction, and inserts as Kysely does", async () => {
    const ids = userIds.slice(0, 4);
    const viaKysely = () =>
      db
        .selectFrom("users")
        .select(["id", "firstName", "lastName", "isPrivate", "createdAt"])
        .select((eb) => eb.val(1).as("oneMore"))
        .where("id", "in", ids)
        .orderBy("id")
        .execute();
    const expected = await viaKysely();
    expect(expected).toHaveLength(4);
    expect(await profile(db, null, [ids])).toEqual(expected);
    const inside = await h.deps.db.transaction(async (trx) => {
      const [columns, values] = insertShape({
        followerId: userIds[4],
        followeeId: userIds[5],
        createdAt: new Date(0).toISOString(),
      });
      const inserted = await follow(trx, columns, values);
      const seen = await trx
        .selectFrom("userFollows")
        .select(["followerId", "followeeId"])
        .where("followerId", "=", userIds[4]!)
        .execute();
      return { rows: await profile(trx, null, [ids]), inserted, seen };
    });
    expect(inside.rows).toEqual(expected);
    expect(inside.inserted).toEqual([{ followerId: userIds[4], followeeId: userIds[5] }]);
    expect(inside.seen).toEqual(inside.inserted);
  });

  it("runs on SQLite's connection without Kysely's executor, and through Kysely elsewhere", async () => {
    const driver = splitDriverOf(db.getExecutor().adapter);
    // Only SQLite's split driver runs statements at once; PostgreSQL's pool goes through Kysely.
    expect(driver !== undefined).toBe(engine === "sqlite");
    const atOnce = driver ? vi.spyOn(driver, "runAtOnce") : undefined;
    const executed = vi.spyOn(db.getExecutor(), "executeQuery");
    try {
      await profile(db, null, [userIds.slice(0, 2)]);
      await h.deps.db.transaction(async (trx) => profile(trx, null, [userIds.slice(0, 2)]));
      if (atOnce) {
        expect(atOnce).toHaveBeenCalledTimes(2);
        expect(atOnce.mock.results.every((r) => Array.isArray(r.value))).toBe(true);
        expect(executed).not.toHaveBeenCalled();
      } else expect(executed).toHaveBeenCalledTimes(1);
    } finally {
      atOnce?.mockRestore();
      executed.mockRestore();
    }
  });
});
