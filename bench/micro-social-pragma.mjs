#!/usr/bin/env node
// SQLite settings against the social read path: the single post and a 20-discussion feed page read
// through the use cases (no HTTP) on the seeded world, alternating the defaults and larger
// cache_size / mmap_size / temp_store = memory (docs/decisions/0079).
// usage: npm run build && node bench/micro-social-pragma.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { loadConfig } from "../dist/config.js";
import { withActor } from "../dist/modules/context.js";
import { createKeyPairAuthenticator } from "../dist/modules/identity/authenticate.js";
import { readFeed } from "../dist/modules/social/feeds/read-feed.js";
import { getPost } from "../dist/modules/social/posts/get-post.js";
import { closeDeps, createDeps } from "../dist/runtime.js";
import { issueDemoCredentials, seedDemoWorld } from "../dist/seed/seed.js";

const dir = mkdtempSync(join(tmpdir(), "sta-p-"));
const deps = await createDeps(loadConfig({ LOG_LEVEL: "silent" }, { database: join(dir, "m.db") }));
await seedDemoWorld(deps);
const k = await issueDemoCredentials(deps);
const actor = await createKeyPairAuthenticator(deps)(k.apiKey, k.userKey);
const ctx = withActor(deps, actor);
const [p] = await deps.db.kysely
  .selectFrom("posts")
  .innerJoin("comments", "comments.postId", "posts.id")
  .select("posts.id")
  .where("posts.type", "=", "Default")
  .where("posts.isDeleted", "=", 0)
  .where("posts.isSpam", "=", 0)
  .where("posts.ownerId", "=", actor.userId)
  .limit(1)
  .execute();
async function time(fn, N = 2000) {
  for (let i = 0; i < 300; i++) await fn();
  const t = performance.now();
  for (let i = 0; i < N; i++) await fn();
  return ((performance.now() - t) * 1000) / N;
}
const settings = {
  base: [],
  pragmas: ["pragma mmap_size = 268435456", "pragma cache_size = -65536", "pragma temp_store = memory"],
};
for (let r = 0; r < 3; r++)
  for (const [name, ps] of Object.entries(settings)) {
    for (const q of name === "base"
      ? ["pragma mmap_size = 0", "pragma cache_size = -2000", "pragma temp_store = default"]
      : ps)
      await sql.raw(q).execute(deps.db.kysely);
    const a = await time(() => getPost(ctx, p.id, { take: 10 }));
    const b = await time(
      () =>
        readFeed(
          ctx,
          { feed: "instrument", marketId: "1001", alias: true },
          { take: 20, offset: 0, reactionsPageSize: 10 },
        ),
      1000,
    );
    console.log(name.padEnd(8), "post", a.toFixed(0), "µs  feed", b.toFixed(0), "µs");
  }
await closeDeps(deps);
rmSync(dir, { recursive: true, force: true });
