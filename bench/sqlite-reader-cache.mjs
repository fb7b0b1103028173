// What another connection's commits cost a SQLite reader (decision 0197): SQLite drops a
// connection's whole page cache when it finds, at its next read, that another connection wrote.
// On a copy of a seeded world, the same pair of reads (twelve users by id, a post with its comment
// count) timed on a second connection with no writes, with a write by the first connection before
// each pair, and on the writing connection itself after its own writes.
// usage: npm run build && node bench/world/seed.mjs --world small --out /tmp/world
//        node bench/sqlite-reader-cache.mjs /tmp/world/small.db
import Database from "better-sqlite3";
import { copyOfStore } from "./lib.mjs";

const seeded = process.argv[2];
if (!seeded) {
  console.error("usage: node bench/sqlite-reader-cache.mjs WORLD.db");
  process.exit(2);
}
const copy = copyOfStore(seeded, "sta-reader-cache-");
const writer = new Database(copy.file);
writer.pragma("journal_mode = WAL");
writer.pragma("synchronous = NORMAL");
const reader = new Database(copy.file, { readonly: true });

const ids = writer
  .prepare("select id from users limit 12 offset 100")
  .all()
  .map((r) => r.id);
const postId = writer.prepare("select id from posts limit 1 offset 5").get().id;
const users = writer
  .prepare("select id from users")
  .all()
  .map((r) => r.id);
const posts = writer
  .prepare("select id from posts limit 5000")
  .all()
  .map((r) => r.id);
const like = writer.prepare(
  "insert or ignore into likes (id, entity_id, entity_type, user_id, created_at) values (?, ?, 'Post', ?, 'bench')",
);
const readsOn = (db) => {
  const byId = db.prepare(`select * from users where id in (${ids.map(() => "?").join(",")})`);
  const post = db.prepare(
    "select p.*, (select count(*) from comments c where c.post_id = p.id) n from posts p where p.id = ?",
  );
  return () => {
    byId.all(...ids);
    post.get(postId);
  };
};
let k = 0;
function time(name, reads, write) {
  const n = 3000;
  let ns = 0n;
  for (let i = 0; i < n; i++) {
    if (write) like.run(`bench-${k}`, posts[k % posts.length], users[(k++ * 7) % users.length]);
    const t = process.hrtime.bigint();
    reads();
    ns += process.hrtime.bigint() - t;
  }
  console.log(name.padEnd(40), (Number(ns) / 1000 / n).toFixed(1).padStart(7), "µs per pair of reads");
}
const onReader = readsOn(reader);
const onWriter = readsOn(writer);
for (let round = 0; round < 2; round++) {
  time("reader, no writes", onReader, false);
  time("reader, another connection's write before", onReader, true);
  time("writer, its own write before", onWriter, true);
}
reader.close();
writer.close();
copy.drop();
