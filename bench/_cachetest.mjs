import { copyFileSync, rmSync } from "node:fs";
import Database from "better-sqlite3";
rmSync("/tmp/ct.db-wal", { force: true });
rmSync("/tmp/ct.db-shm", { force: true });
copyFileSync("/tmp/world/small.db", "/tmp/ct.db");
const w = new Database("/tmp/ct.db");
w.pragma("journal_mode = WAL");
w.pragma("synchronous = NORMAL");
const mmap = Number(process.argv[2] ?? 0);
const r = new Database("/tmp/ct.db", { readonly: true });
if (mmap) r.pragma(`mmap_size = ${mmap}`);
if (mmap) w.pragma(`mmap_size = ${mmap}`);
const ids = w
  .prepare("select id from users limit 12 offset 100")
  .all()
  .map((x) => x.id);
const q = r.prepare(`select * from users where id in (${ids.map(() => "?").join(",")})`);
const pid = w.prepare("select id from posts limit 1 offset 5").get().id;
const qp = r.prepare(
  `select p.*, (select count(*) from comments c where c.post_id = p.id) n from posts p where p.id = ?`,
);
const ins = w.prepare(
  "insert or ignore into likes (id, entity_id, entity_type, user_id, created_at) values (?, ?, 'Post', ?, 'x')",
);
const users = w
  .prepare("select id from users")
  .all()
  .map((x) => x.id);
const posts = w
  .prepare("select id from posts limit 5000")
  .all()
  .map((x) => x.id);
let k = 0;
function bench(name, withWrite) {
  const N = 3000;
  let t = 0n;
  for (let i = 0; i < N; i++) {
    if (withWrite) ins.run(`bench-${process.pid}-${k++}`, posts[k % posts.length], users[k % users.length]);
    const s = process.hrtime.bigint();
    q.all(...ids);
    qp.get(pid);
    t += process.hrtime.bigint() - s;
  }
  console.log(name.padEnd(20), (Number(t) / 1000 / N).toFixed(1), "µs per read pair");
}
bench("no writes", false);
bench("write between", true);
bench("no writes", false);
bench("write between", true);
const qw = w.prepare(`select * from users where id in (${ids.map(() => "?").join(",")})`);
const qpw = w.prepare(
  `select p.*, (select count(*) from comments c where c.post_id = p.id) n from posts p where p.id = ?`,
);
function benchW(name) {
  const N = 3000;
  let t = 0n;
  for (let i = 0; i < N; i++) {
    ins.run(`benchw-${process.pid}-${k++}`, posts[k % posts.length], users[(k * 7) % users.length]);
    const s = process.hrtime.bigint();
    qw.all(...ids);
    qpw.get(pid);
    t += process.hrtime.bigint() - s;
  }
  console.log(name.padEnd(20), (Number(t) / 1000 / N).toFixed(1), "µs per read pair");
}
benchW("writer, own writes");
benchW("writer, own writes");
