// The benchmark world (docs/decisions/0167, 0168): the seeder writes what the scenarios expect
// (counts, deterministic ids, distinct likers, working key pairs, indexes rebuilt) on each engine,
// and the traffic generator's Zipf law and feed pages point at what exists.
import { createHash } from "node:crypto";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { feedPageOf, rng, socialSequence, zipf } from "../../bench/many/traffic.mjs";
import { type BenchEngine, createEngine } from "../../bench/world/engines.mjs";
import { seedWorld } from "../../bench/world/seed.mjs";
import { authorOf, postId, userId, type WorldSizes } from "../../bench/world/sizes.mjs";
import { parseDatabaseTarget } from "../../src/config/storage.js";
import { openDatabase } from "../../src/infra/db/database.js";
import { engines } from "../support/harness.js";

const TINY: WorldSizes = { users: 120, callers: 20, posts: 600, likes: 3_000, comments: 150 };

describe("the many-caller traffic", () => {
  it("draws Zipf ranks inside the world, the hottest most often, the same on every run", () => {
    const draw = zipf(1_000, 1, rng(7));
    const counts = new Map<number, number>();
    for (let i = 0; i < 20_000; i++) {
      const n = draw();
      expect(n).toBeGreaterThanOrEqual(0);
      expect(n).toBeLessThan(1_000);
      counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    const sorted = [...counts.values()].sort((a, b) => b - a);
    // Exponent 1 over 1,000 ranks: the top rank holds about 1/H(1000) ≈ 13% of the draws.
    expect(sorted[0]! / 20_000).toBeGreaterThan(0.1);
    expect(sorted[0]!).toBeGreaterThan(sorted[9]! * 5);
    const again = zipf(1_000, 1, rng(7));
    const first = zipf(1_000, 1, rng(7));
    expect(Array.from({ length: 50 }, again)).toEqual(Array.from({ length: 50 }, first));
  });

  it("mixes 5% writes into the reads, from every caller", () => {
    const callers = Array.from({ length: 1_000 }, (_, i) => ({
      index: i,
      userId: userId(i),
      apiKey: `a${i}`,
      userKey: `u${i}`,
    }));
    const seq = socialSequence(TINY, callers, 20_000, (n) => `/api/v1/posts/${postId(n)}`);
    const writes = seq.filter((r) => r.method === "POST").length / seq.length;
    expect(writes).toBeGreaterThan(0.04);
    expect(writes).toBeLessThan(0.06);
    expect(new Set(seq.map((r) => r.caller)).size).toBeGreaterThan(990);
    expect(new Set(seq.filter((r) => r.method === "POST").map((r) => r.key))).toEqual(
      new Set(["POST /api/v1/posts/:id/likes", "POST /api/v1/posts/:id/comments", "POST /api/v1/posts"]),
    );
  });
});

describe.each(engines())("the seeded world (%s)", (kind) => {
  let engine: BenchEngine | undefined;
  afterAll(async () => {
    await engine?.drop();
  });

  it("holds the world's rows, distinct likers, working key pairs and rebuilt indexes", async () => {
    engine = await createEngine(kind);
    const { callers } = await seedWorld(engine.database, TINY, { quiet: true });
    const db = await openDatabase(parseDatabaseTarget(engine.database));
    try {
      const k = db.kysely;
      const count = async (table: "users" | "posts" | "likes" | "comments" | "postTags" | "keyPairs") =>
        Number(
          (
            await k
              .selectFrom(table)
              .select((e) => e.fn.countAll().as("n"))
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect(await count("users")).toBe(TINY.users);
      expect(await count("posts")).toBe(TINY.posts);
      expect(await count("postTags")).toBe(TINY.posts);
      expect(await count("comments")).toBe(TINY.comments);
      expect(await count("likes")).toBe(TINY.likes);
      expect(await count("keyPairs")).toBe(TINY.callers);

      const distinct = await sql<{
        n: number;
      }>`select count(*) as n from (select distinct entity_id, user_id from likes) d`.execute(k);
      expect(Number(distinct.rows[0]!.n)).toBe(TINY.likes);

      // A caller's secrets hash to its stored key pair, owned by the caller's user.
      const c = callers[7]!;
      const row = await k.selectFrom("keyPairs").selectAll().where("userId", "=", c.userId).executeTakeFirstOrThrow();
      expect(row.apiKeyHash).toBe(createHash("sha256").update(c.apiKey).digest("hex"));
      expect(row.userKeyHash).toBe(createHash("sha256").update(c.userKey).digest("hex"));

      // Tags carry their post's seq; the feed index the scenarios rely on exists again.
      const tag = await k
        .selectFrom("postTags")
        .innerJoin("posts", "posts.id", "postTags.postId")
        .select(["postTags.postSeq", "posts.seq"])
        .where("posts.id", "=", postId(321))
        .executeTakeFirstOrThrow();
      expect(tag.postSeq).toBe(tag.seq);
      const indexes =
        kind === "postgres"
          ? await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'posts'`.execute(k)
          : await sql<{
              name: string;
            }>`select name from sqlite_master where type = 'index' and tbl_name = 'posts'`.execute(k);
      expect(indexes.rows.map((r) => r.name)).toEqual(
        expect.arrayContaining(["posts_owner_seq", "posts_shared_origin"]),
      );

      // The feed page the many-feed scenario asks for holds the chosen post.
      for (const n of [0, 13, 299, 599]) {
        const url = new URL(`http://x${feedPageOf(TINY, n)}`);
        const offset = Number(url.searchParams.get("offset"));
        const page = await k
          .selectFrom("posts")
          .select("id")
          .where("ownerId", "=", userId(authorOf(TINY, n)))
          .orderBy("seq", "desc")
          .limit(20)
          .offset(offset)
          .execute();
        expect(page.map((p) => p.id)).toContain(postId(n));
      }
    } finally {
      await db.close();
    }
  }, 120_000);
});
