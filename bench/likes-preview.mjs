// The likes preview's statements timed directly on a store (docs/decisions/0193): the one window
// query over every like of the entities (before) against counts first, then one window over the
// entities with at most 32 likes and one statement of limit arms for the others (after); on the
// store's posts, then on an in-memory table with a post of 5,000 likes.
// usage: npm run build && node bench/world/seed.mjs --world large --out /tmp/wlarge
//        node bench/likes-preview.mjs /tmp/wlarge/large.db
import Database from "better-sqlite3";

const db = new Database(process.argv[2], { readonly: true });
const hot = db.prepare("select entity_id id, count(*) n from likes group by entity_id order by n desc limit 20").all();
const some = db
  .prepare("select id from posts where rowid % 50000 = 7 limit 20")
  .all()
  .map((r) => r.id);
console.log("hot likes:", hot.map((h) => h.n).join(","));
const old = (ids) =>
  db
    .prepare(
      `select * from (select *, row_number() over(partition by entity_id order by seq desc) as rn, count(*) over(partition by entity_id) as total from likes where entity_id in (${ids.map(() => "?").join(",")})) l where l.rn <= 10 order by l.seq desc`,
    )
    .all(...ids);
const counts = (ids) =>
  db
    .prepare(
      `select entity_id, count(*) n from likes where entity_id in (${ids.map(() => "?").join(",")}) group by entity_id`,
    )
    .all(...ids);
const win = (ids) =>
  db
    .prepare(
      `select * from (select *, row_number() over(partition by entity_id order by seq desc) as rn from likes where entity_id in (${ids.map(() => "?").join(",")})) l where l.rn <= 10`,
    )
    .all(...ids);
const arms = (ids) =>
  db
    .prepare(
      ids
        .map((_, i) => `select * from (select * from likes where entity_id = ? order by seq desc limit 10) as l${i}`)
        .join(" union all "),
    )
    .all(...ids);
const fresh = (ids) => {
  const c = counts(ids);
  const few = c.filter((r) => r.n <= 32).map((r) => r.entity_id);
  const many = c.filter((r) => r.n > 32).map((r) => r.entity_id);
  return [few.length ? win(few) : [], many.length ? arms(many) : []];
};
const time = (name, f, sets) => {
  for (const s of sets) f(s);
  const t = process.hrtime.bigint();
  let n = 0;
  for (let k = 0; k < 20; k++)
    for (const s of sets) {
      f(s);
      n++;
    }
  console.log(name.padEnd(28), (Number(process.hrtime.bigint() - t) / 1000 / n).toFixed(0).padStart(7), "µs per call");
};
const hotOne = hot.map((h) => [h.id]);
const someOne = some.map((id) => [id]);
const page = [some.slice(0, 18).concat(hot.slice(0, 2).map((h) => h.id))];
time("old, one hot post", old, hotOne);
time("new, one hot post", fresh, hotOne);
time("old, one typical post", old, someOne);
time("new, one typical post", fresh, someOne);
time("old, 20 posts (2 hot)", old, page);
time("new, 20 posts (2 hot)", fresh, page);
time("old, 20 typical posts", old, [some]);
time("new, 20 typical posts", fresh, [some]);
// A post as popular as real ones get: 5,000 likes (none in the seeded worlds has more than 134).
const mem = new Database(":memory:");
mem.exec(
  db
    .prepare("select sql from sqlite_master where name = 'likes'")
    .get()
    .sql.replace(" references users(id) on delete cascade", ""),
);
mem.exec("create index likes_entity_seq on likes (entity_id, seq)");
const ins = mem.prepare(
  "insert into likes (id, entity_id, entity_type, user_id, created_at) values (?, ?, 'Post', ?, '2026-01-01')",
);
mem.transaction(() => {
  for (let i = 0; i < 5000; i++) ins.run(`l${i}`, "popular", `u${i}`);
  for (let i = 0; i < 5000; i++) ins.run(`m${i}`, `p${i % 500}`, `u${i}`);
})();
const memOld = (ids) =>
  mem
    .prepare(
      `select * from (select *, row_number() over(partition by entity_id order by seq desc) as rn, count(*) over(partition by entity_id) as total from likes where entity_id in (${ids.map(() => "?").join(",")})) l where l.rn <= 10 order by l.seq desc`,
    )
    .all(...ids);
const memNew = (ids) => {
  const c = mem
    .prepare(
      `select entity_id, count(*) n from likes where entity_id in (${ids.map(() => "?").join(",")}) group by entity_id`,
    )
    .all(...ids);
  const many = c.filter((r) => r.n > 32).map((r) => r.entity_id);
  const few = c.filter((r) => r.n <= 32).map((r) => r.entity_id);
  if (few.length)
    mem
      .prepare(
        `select * from (select *, row_number() over(partition by entity_id order by seq desc) as rn from likes where entity_id in (${few.map(() => "?").join(",")})) l where l.rn <= 10`,
      )
      .all(...few);
  if (many.length)
    mem
      .prepare(
        many
          .map((_, i) => `select * from (select * from likes where entity_id = ? order by seq desc limit 10) as l${i}`)
          .join(" union all "),
      )
      .all(...many);
};
const popularPage = [["popular", ...Array.from({ length: 19 }, (_, i) => `p${i}`)]];
time("old, 5,000-like post", memOld, [["popular"]]);
time("new, 5,000-like post", memNew, [["popular"]]);
time("old, 20 posts (1 of 5,000)", memOld, popularPage);
time("new, 20 posts (1 of 5,000)", memNew, popularPage);
