// One create index over a kept store's people_stats (1,000,000 rows at 100,000 accounts), with and
// without SQLite's sorter thread (decision 0180). Usage: node bench/people-bare-index.mjs <store.db>
import Database from "better-sqlite3";

const db = new Database(process.argv[2]);
db.pragma("cache_size = -262144");
db.pragma("temp_store = MEMORY");
for (const threads of [0, 2, 0, 2]) {
  db.pragma(`threads = ${threads}`);
  const t = performance.now();
  db.exec("create index tmp_x on people_stats (period, daily_gain desc, gcid, listed)");
  const ms = performance.now() - t;
  db.exec("drop index tmp_x");
  console.log(`threads ${db.pragma("threads", { simple: true })}: ${Math.round(ms)} ms`);
}
console.log(db.prepare("select count(*) n from people_stats").get());
