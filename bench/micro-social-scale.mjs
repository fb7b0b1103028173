#!/usr/bin/env node
// Feed latency against the size of the store: the same feeds read at `--small` and at `--large`
// posts (default 10k and 1M) on a fresh SQLite file each, through the use cases (no HTTP).
// usage: npm run build && node bench/micro-social-scale.mjs [--small 10000] [--large 1000000] [--reads 200]
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { loadConfig } from "../dist/config.js";
import { systemActor } from "../dist/core/actor.js";
import { withActor } from "../dist/modules/context.js";
import { createUser } from "../dist/modules/identity/create-user.js";
import { ensureInstrumentCatalog } from "../dist/modules/market/seed-catalog.js";
import { readFeed } from "../dist/modules/social/feeds/read-feed.js";
import { getPost } from "../dist/modules/social/posts/get-post.js";
import { closeDeps, createDeps } from "../dist/runtime.js";

const { values } = parseArgs({
  options: {
    small: { type: "string", default: "10000" },
    large: { type: "string", default: "1000000" },
    reads: { type: "string", default: "200" },
  },
});

const USERS = 200;
const INSTRUMENTS = [1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010, 100000, 100001];

async function world(posts) {
  const dir = mkdtempSync(join(tmpdir(), "sta-scale-"));
  const config = loadConfig({ LOG_LEVEL: "silent" }, { database: join(dir, "scale.db") });
  const deps = await createDeps(config);
  // SCALE_CACHE_MB: try a larger SQLite page cache than the default 2 MB (an infra/db setting).
  if (process.env.SCALE_CACHE_MB) {
    await sql.raw(`pragma cache_size = -${Number(process.env.SCALE_CACHE_MB) * 1024}`).execute(deps.db.kysely);
  }
  await ensureInstrumentCatalog(deps);
  const op = withActor(deps, systemActor("bench"));
  const users = [];
  for (let i = 0; i < USERS; i++) users.push(await createUser(op, { username: `scale${i}` }));
  const k = deps.db.kysely;
  const t0 = performance.now();
  const now = Date.now();
  const BATCH = 500;
  let seq = 0;
  for (let start = 0; start < posts; start += BATCH * 20) {
    await k.transaction().execute(async (trx) => {
      for (let b = start; b < Math.min(posts, start + BATCH * 20); b += BATCH) {
        const rows = [];
        const tags = [];
        const likes = [];
        for (let i = b; i < Math.min(posts, b + BATCH); i++) {
          seq += 1;
          const id = randomUUID();
          const at = new Date(now - (posts - i) * 1000).toISOString();
          rows.push({
            seq,
            id,
            ownerId: users[i % USERS].id,
            type: "Default",
            text: `post ${i}`,
            languageCode: "en",
            attachments: "[]",
            createdAt: at,
            updatedAt: at,
            editStatus: "None",
            isDeleted: i % 97 === 0 ? 1 : 0,
            isSpam: 0,
            sharedPostId: null,
            sharedOriginPostId: null,
          });
          tags.push({
            postId: id,
            postSeq: seq,
            instrumentId: INSTRUMENTS[i % INSTRUMENTS.length],
            position: 0,
            createdAt: at,
          });
          if (i % 5 === 0) {
            likes.push({
              id: randomUUID(),
              entityId: id,
              entityType: "Post",
              userId: users[(i + 1) % USERS].id,
              createdAt: at,
            });
          }
        }
        await trx.insertInto("posts").values(rows).execute();
        await trx.insertInto("postTags").values(tags).execute();
        if (likes.length) await trx.insertInto("likes").values(likes).execute();
      }
    });
  }
  const me = users[0];
  for (let i = 1; i <= 20; i++) {
    await k
      .insertInto("userFollows")
      .values({ followerId: me.id, followeeId: users[i].id, createdAt: new Date().toISOString() })
      .execute();
  }
  const some = await k.selectFrom("posts").select("id").where("seq", "<=", 300).execute();
  for (const [i, p] of some.entries()) {
    if (i % 3 === 0)
      await k
        .insertInto("saves")
        .values({ postId: p.id, userId: me.id, createdAt: new Date().toISOString() })
        .execute();
  }
  const fill = (performance.now() - t0) / 1000;
  const actor = {
    kind: "user",
    userId: me.id,
    gcid: me.gcid,
    via: "key-pair",
    credentialId: "bench",
    scopes: ["feed:read"],
    environment: "demo",
  };
  return { deps, dir, ctx: withActor(deps, actor), other: users[7], fill };
}

/** SCALE_EXPLAIN=1: prints the SQLite plan steps that scan a whole table, per case. */
async function explain(w, cases) {
  const k = w.deps.db.kysely;
  const seen = [];
  for (const [name, fn] of Object.entries(cases)) {
    seen.length = 0;
    void fn;
    // A fresh plugin per case: prepared queries (infra/db/prepared.ts) compile once per executor
    // setup, so each case compiles, and is recorded, anew.
    const recorder = {
      transformQuery: (args) => {
        seen.push(args);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const ctx = { ...w.ctx, db: { ...w.deps.db, kysely: k.withPlugin(recorder) } };
    await cases[name].call(null, ctx);
    for (const args of seen) {
      const compiled = k
        .getExecutor()
        .compileQuery(k.getExecutor().transformQuery(args.node, args.queryId), args.queryId);
      const plan = await k.executeQuery({ ...compiled, sql: `explain query plan ${compiled.sql}` });
      const scans = plan.rows.map((r) => r.detail).filter((d) => /^SCAN (?!\(|l$|c$)/.test(d));
      if (scans.length) console.log(`${name}: ${scans.join("; ")}\n    ${compiled.sql.slice(0, 300)}`);
    }
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(posts) {
  const w = await world(posts);
  const q = { take: 20, offset: 0, reactionsPageSize: 10 };
  const newest = await w.deps.db.kysely
    .selectFrom("posts")
    .select("id")
    .where("isDeleted", "=", 0)
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  const cases = {
    "feeds/instrument/1001": (c = w.ctx) => readFeed(c, { feed: "instrument", marketId: "1001", alias: true }, q),
    "feeds/instrument/1001 offset 100": (c = w.ctx) =>
      readFeed(c, { feed: "instrument", marketId: "1001", alias: true }, { ...q, offset: 100 }),
    "feeds/users/{id}": (c = w.ctx) => readFeed(c, { feed: "user", userId: String(w.other.gcid), alias: false }, q),
    "feeds/news": (c = w.ctx) => readFeed(c, { feed: "news" }, q),
    "feeds/following": (c = w.ctx) => readFeed(c, { feed: "following" }, q),
    "feeds/saved": (c = w.ctx) => readFeed(c, { feed: "saved" }, q),
    "feeds/for-you": (c = w.ctx) => readFeed(c, { feed: "forYou" }, q),
    "posts/{postId}": (c = w.ctx) => getPost(c, newest.id, { take: 10 }),
  };
  if (process.env.SCALE_EXPLAIN) await explain(w, cases);
  const out = {};
  for (const [name, fn] of Object.entries(cases)) {
    for (let i = 0; i < 20; i++) await fn();
    const times = [];
    for (let i = 0; i < Number(values.reads); i++) {
      const t = performance.now();
      const r = await fn();
      times.push(performance.now() - t);
      if (name.startsWith("feeds") && r.discussions.length === 0) throw new Error(`${name} is empty`);
    }
    out[name] = median(times);
  }
  await closeDeps(w.deps);
  if (process.env.SCALE_KEEP) console.error(`kept ${w.dir}`);
  else rmSync(w.dir, { recursive: true, force: true });
  return { out, fill: w.fill };
}

const small = Number(values.small);
const large = Number(values.large);
process.stderr.write(`filling ${small} posts…\n`);
const a = await measure(small);
process.stderr.write(`filling ${large} posts (took ${a.fill.toFixed(1)} s for ${small})…\n`);
const b = await measure(large);
process.stderr.write(`(took ${b.fill.toFixed(1)} s)\n`);
console.log(
  `\nmedian latency, ms (SQLite, 20-discussion pages)\n${"case".padEnd(36)}${String(small).padStart(10)}${String(large).padStart(10)}   ratio`,
);
let worst = 0;
for (const name of Object.keys(a.out)) {
  const ratio = b.out[name] / a.out[name];
  worst = Math.max(worst, ratio);
  console.log(
    `${name.padEnd(36)}${a.out[name].toFixed(2).padStart(10)}${b.out[name].toFixed(2).padStart(10)}   ${ratio.toFixed(2)}x`,
  );
}
console.log(`\nworst ratio ${worst.toFixed(2)}x: ${worst <= 1.5 ? "MET" : "MISSED"} target <= 1.5x`);
