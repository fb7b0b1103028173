// The comment preview's two statements timed directly on a copy of a store (decision 0197): one
// window over every comment of the posts against one `limit` arm per post, for 20 posts of a few
// comments, for one post given 2,000 comments, and for 20 posts one of which has them.
// usage: npm run build && node bench/world/seed.mjs --world small --out /tmp/world
//        node bench/comments-preview.mjs /tmp/world/small.db
import Database from "better-sqlite3";
import { copyOfStore } from "./lib.mjs";

const seeded = process.argv[2];
if (!seeded) {
  console.error("usage: node bench/comments-preview.mjs STORE.db");
  process.exit(2);
}
const copy = copyOfStore(seeded, "sta-comments-preview-");
const db = new Database(copy.file);
const VISIBLE = "is_deleted = 0 and is_spam = 0 and parent_id is null";
const windowed = (ids) =>
  db.prepare(
    `select * from (select *, row_number() over(partition by post_id order by seq desc) rn from comments where post_id in (${ids.map(() => "?").join(",")}) and ${VISIBLE}) c where c.rn <= 2 order by c.seq desc`,
  );
const armed = (ids) =>
  db.prepare(
    ids
      .map(
        (_, i) =>
          `select * from (select * from comments where ${VISIBLE} and post_id = ? order by seq desc limit 2) as c${i}`,
      )
      .join(" union all "),
  );
const time = (label, ids) => {
  for (const [name, make] of [
    ["window", windowed],
    ["arms", armed],
  ]) {
    const statement = make(ids);
    for (let i = 0; i < 50; i++) statement.all(...ids);
    const n = 500;
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) statement.all(...ids);
    console.log(
      label.padEnd(36),
      name.padEnd(7),
      (Number(process.hrtime.bigint() - t) / 1000 / n).toFixed(1).padStart(8),
      "µs",
    );
  }
};
const posts = db
  .prepare("select post_id id, count(*) n from comments group by post_id order by n desc limit 20")
  .all()
  .map((r) => r.id);
time("20 posts, as seeded", posts);
const hot = posts[0];
const model = db.prepare("select * from comments where post_id = ? limit 1").get(hot);
const insert = db.prepare(
  "insert into comments (id, post_id, parent_id, owner_id, text, language_code, attachments, created_at, updated_at, edit_status, is_deleted, is_spam) values (?, ?, null, ?, 'A comment', 'en', '[]', ?, ?, 'None', 0, 0)",
);
db.transaction(() => {
  for (let i = 0; i < 2000; i++)
    insert.run(`bench-comment-${i}`, hot, model.owner_id, model.created_at, model.created_at);
})();
time("1 post of 2,000 comments", [hot]);
time("20 posts, one of 2,000 comments", posts);
db.close();
copy.drop();
