#!/usr/bin/env node
// Seeds a benchmark world (docs/decisions/0168) into a SQLite file or a PostgreSQL database:
// users, key pairs for the callers, posts with tags, comments, likes and notifications, with a
// progress bar on stderr. The rows are made by the database itself (set-based `insert … select`
// over a number series, in big transactions, secondary indexes dropped first and built after), so
// 10M likes are minutes, not hours. Migrations run first, through the server's own code.
// usage: npm run build && node bench/world/seed.mjs --world large (--database ./large.db | --out DIR)
//        node bench/world/seed.mjs --world default --database postgres://127.0.0.1:5432/mydb
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { parseDatabaseTarget } from "../../dist/config/storage.js";
import { openDatabase } from "../../dist/infra/db/database.js";
import { migrateToLatest } from "../../dist/infra/db/migrate.js";
import { parseScopes } from "../../dist/modules/identity/key-pairs.js";
import {
  NOTIFICATION_FORMAT_VERSION,
  NOTIFICATION_KINDS,
} from "../../dist/modules/notifications/notifications.catalog.js";
import { DEMO_SCOPES } from "../../dist/seed/seed.js";
import { authorsOf, TAG_INSTRUMENTS, userId, WORLDS } from "./sizes.mjs";

/** Rows per statement (and per transaction): big enough to amortise a commit, small enough to show progress. */
const CHUNK = 100_000;
const NOTIFICATIONS_PER_CALLER = 10;

/** A progress bar on stderr: `label [#####.....] done/total rows/s`. */
let quiet = false;
function progress(label, total) {
  const t0 = performance.now();
  let last = 0;
  const draw = (done, final = false) => {
    const now = performance.now();
    if (quiet || (!final && (now - last < 200 || done >= total))) return;
    last = now;
    const width = 30;
    const filled = Math.round((done / total) * width);
    const rate = done / ((now - t0) / 1000 || 1e-9);
    process.stderr.write(
      `\r${label.padEnd(14)} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${done.toLocaleString("en")}/${total.toLocaleString("en")} ${Math.round(rate).toLocaleString("en")} rows/s   ${final ? "\n" : ""}`,
    );
  };
  return {
    tick: draw,
    done() {
      draw(total, true);
      return (performance.now() - t0) / 1000;
    },
  };
}

/** Dialect helpers: a series of integers, an id from an integer, an ISO instant from epoch seconds. */
function dialectSql(dialect) {
  const pg = dialect === "postgres";
  return {
    // `with s(n)`: the integers from lo to hi inclusive.
    series: (lo, hi) =>
      pg
        ? `s(n) as (select generate_series(${lo}, ${hi}) as n)`
        : `recursive s(n) as (select ${lo} union all select n + 1 from s where n < ${hi})`,
    id: (variant, expr) =>
      pg
        ? `'00000000-0000-4000-${variant}000-' || lpad(to_hex(${expr}), 12, '0')`
        : `printf('00000000-0000-4000-${variant}000-%012x', ${expr})`,
    iso: (secondsExpr) =>
      pg
        ? `to_char(to_timestamp(${secondsExpr}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
        : `strftime('%Y-%m-%dT%H:%M:%fZ', ${secondsExpr}, 'unixepoch')`,
    // Integer division that stays integer on both.
    div: (a, b) => (pg ? `(${a}) / ${b}` : `cast((${a}) / ${b} as integer)`),
  };
}

/** Secondary indexes of `table` that can be dropped (not a primary key or a constraint's). */
async function droppableIndexes(conn, dialect, table) {
  if (dialect === "postgres") {
    const { rows } = await sql`select indexname as name, indexdef as def from pg_indexes
      where schemaname = current_schema() and tablename = ${table}
        and indexname not in (select conname from pg_constraint)`.execute(conn);
    return rows;
  }
  const { rows } = await sql`select name, sql as def from sqlite_master
    where type = 'index' and tbl_name = ${table} and sql is not null`.execute(conn);
  return rows;
}

/** Runs `insert` over [0, total) in chunks, each its own transaction, drawing progress. */
async function chunked(conn, label, total, insert) {
  const bar = progress(label, total);
  for (let lo = 0; lo < total; lo += CHUNK) {
    const hi = Math.min(total, lo + CHUNK) - 1;
    await sql.raw("begin").execute(conn);
    await sql.raw(insert(lo, hi)).execute(conn);
    await sql.raw("commit").execute(conn);
    bar.tick(hi + 1);
  }
  return bar.done();
}

/**
 * Seeds `world` (a key of WORLDS or an object of sizes) into `database` (a SQLite path or a
 * postgres:// URL). Returns the callers' credentials and the seconds each table took.
 * `options.quiet`: no progress bars.
 */
export async function seedWorld(database, world, options = {}) {
  quiet = options.quiet === true;
  const w = typeof world === "string" ? WORLDS[world] : world;
  if (!w) throw new Error(`unknown world ${world}; known: ${Object.keys(WORLDS).join(", ")}`);
  const target = parseDatabaseTarget(database);
  const db = await openDatabase(target.kind === "postgres" ? { ...target, queryTimeoutMs: 600_000 } : target);
  const dialect = target.kind;
  const d = dialectSql(dialect);
  const seconds = {};
  try {
    await migrateToLatest(db);
    const callers = await db.kysely.connection().execute(async (conn) => {
      // The seeder's own session: no per-commit sync (the world is rebuilt if the machine dies
      // mid-seed), no per-row foreign-key checks (every reference is made by construction).
      if (dialect === "postgres") {
        await sql.raw("set synchronous_commit = off").execute(conn);
        await sql.raw("set session_replication_role = replica").execute(conn);
      } else {
        await sql.raw("pragma synchronous = off").execute(conn);
        await sql.raw("pragma foreign_keys = off").execute(conn);
      }
      const tables = ["posts", "post_tags", "comments", "likes"];
      const indexes = [];
      for (const t of tables) indexes.push(...(await droppableIndexes(conn, dialect, t)));
      for (const ix of indexes) await sql.raw(`drop index ${ix.name}`).execute(conn);

      const now = Math.floor(Date.now() / 1000);
      // Post n was written n seconds after `start`; the newest a minute ago.
      const start = now - 60 - w.posts;
      const authors = authorsOf(w);
      seconds.users = await chunked(
        conn,
        "users",
        w.users,
        (lo, hi) => `with ${d.series(lo, hi)}
          insert into users (id, username, username_lower, first_name, last_name, created_at)
          select ${d.id(9, "n")}, 'bench' || n, 'bench' || n, 'Bench', 'User ' || n, ${d.iso(`${start} - 86400`)} from s`,
      );
      seconds.posts = await chunked(
        conn,
        "posts",
        w.posts,
        (lo, hi) => `with ${d.series(lo, hi)}
          insert into posts (id, owner_id, type, text, language_code, attachments, created_at, updated_at, edit_status)
          select ${d.id(8, "n")}, ${d.id(9, `n % ${authors}`)}, 'Default',
            'Bench post ' || n || ': a few words about the market, long enough to look like a real post.',
            'en', '[]', ${d.iso(`${start} + n`)}, ${d.iso(`${start} + n`)}, 'None' from s`,
      );
      // Tags copy the post's seq (the instrument feed's order) from the posts just written.
      // Posts were written in order into a fresh table: post n's seq is the first seq + n.
      const first = await sql`select min(seq) as seq from posts`.execute(conn);
      const seq0 = Number(first.rows[0].seq);
      seconds.tags = await chunked(
        conn,
        "post tags",
        w.posts,
        (lo, hi) => `insert into post_tags (post_id, post_seq, instrument_id, position, created_at)
          select id, seq, case seq % ${TAG_INSTRUMENTS.length} ${TAG_INSTRUMENTS.map((id, i) => `when ${i} then ${id}`).join(" ")} end,
            0, created_at from posts where seq between ${seq0 + lo} and ${seq0 + hi}`,
      );
      // Comment c is on post (c * 2) % posts, by user (c * 7) % users, an hour after the post.
      seconds.comments = await chunked(
        conn,
        "comments",
        w.comments,
        (lo, hi) => `with ${d.series(lo, hi)}
          insert into comments (id, post_id, owner_id, text, language_code, attachments, created_at, updated_at, edit_status)
          select ${d.id("a", "n")}, ${d.id(8, `(n * 2) % ${w.posts}`)}, ${d.id(9, `(n * 7) % ${w.users}`)},
            'A comment', 'en', '[]', ${d.iso(`${start} + (n * 2) % ${w.posts} + 3600`)},
            ${d.iso(`${start} + (n * 2) % ${w.posts} + 3600`)}, 'None' from s`,
      );
      // Like k is on post k % posts by user (j * 7919 + post * 13) % users, j = k div posts: a
      // post's likers are distinct (7919 is prime and likes/posts < users).
      seconds.likes = await chunked(
        conn,
        "likes",
        w.likes,
        (lo, hi) => `with ${d.series(lo, hi)}
          insert into likes (id, entity_id, entity_type, user_id, created_at)
          select ${d.id("b", "n")}, ${d.id(8, `n % ${w.posts}`)}, 'Post',
            ${d.id(9, `(${d.div("n", w.posts)} * 7919 + (n % ${w.posts}) * 13) % ${w.users}`)},
            ${d.iso(`${start} + n % ${w.posts} + 60`)} from s`,
      );
      const bar = progress("indexes", indexes.length);
      for (const [i, ix] of indexes.entries()) {
        await sql.raw(ix.def).execute(conn);
        bar.tick(i + 1);
      }
      seconds.indexes = bar.done();
      if (dialect === "postgres") {
        for (const t of ["users", ...tables]) await sql.raw(`analyze ${t}`).execute(conn);
      } else {
        await sql.raw("analyze").execute(conn);
      }
      return issueCallers(conn, w, now);
    });
    return { world: w, callers, seconds };
  } finally {
    await db.close();
  }
}

/** Key pairs for users 0..callers-1 (the rows createKeyPair writes) and a few notifications each. */
async function issueCallers(conn, w, now) {
  const scopes = JSON.stringify(parseScopes(DEMO_SCOPES, ""));
  const hash = (s) => createHash("sha256").update(s).digest("hex");
  const at = new Date(now * 1000).toISOString();
  const callers = [];
  const bar = progress("key pairs", w.callers);
  for (let lo = 0; lo < w.callers; lo += 200) {
    const rows = [];
    const notes = [];
    for (let i = lo; i < Math.min(w.callers, lo + 200); i++) {
      const apiKey = `sta_ak_${randomBytes(32).toString("base64url")}`;
      const userKey = `sta_uk_${randomBytes(32).toString("base64url")}`;
      callers.push({ index: i, userId: userId(i), apiKey, userKey });
      rows.push({
        id: `00000000-0000-4000-c000-${i.toString(16).padStart(12, "0")}`,
        userId: userId(i),
        appName: "bench",
        apiKeyHash: hash(apiKey),
        userKeyHash: hash(userKey),
        scopes,
        environment: "demo",
        createdAt: at,
        revokedAt: null,
      });
      const kind = NOTIFICATION_KINDS.welcome;
      for (let j = 0; j < NOTIFICATIONS_PER_CALLER; j++) {
        const id = `00000000-0000-4000-d${String(j).padStart(3, "0")}-${i.toString(16).padStart(12, "0")}`;
        notes.push({
          id,
          userId: userId(i),
          correlationId: id,
          actionLink: "/api/v1/me",
          imageTitle: "",
          imageUrl: "",
          notificationType: kind.notificationType,
          version: NOTIFICATION_FORMAT_VERSION,
          aggregatable: kind.aggregatable ? 1 : 0,
          grouped: 0,
          aggregationId: "",
          message: `Welcome, bench${i}! Notice ${j} of the bench world.`,
          readStatus: "Seen",
          publishDate: new Date((now - 3600 + j * 60) * 1000).toISOString(),
          subCategory: kind.subCategory,
          category: kind.category,
          rtlLanguage: 0,
          section: kind.section,
        });
      }
    }
    await conn.insertInto("keyPairs").values(rows).execute();
    for (let k = 0; k < notes.length; k += 500) {
      await conn
        .insertInto("notifications")
        .values(notes.slice(k, k + 500))
        .execute();
    }
    bar.tick(callers.length);
  }
  bar.done();
  return callers;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      world: { type: "string", default: "default" },
      database: { type: "string" },
      callers: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  // --out DIR: the world's file and callers where `bench:many -- --reuse DIR` finds them.
  if (values.out) {
    mkdirSync(values.out, { recursive: true });
    values.database = join(values.out, `${values.world}.db`);
    values.callers = join(values.out, `${values.world}.callers.json`);
  }
  if (values.help || !values.database || !WORLDS[values.world]) {
    (values.help ? console.log : console.error)(
      "usage: node bench/world/seed.mjs --world small|default|large (--database <file or postgres:// URL> [--callers FILE.json] | --out DIR)",
    );
    process.exit(values.help ? 0 : 2);
  }
  const t0 = performance.now();
  const out = await seedWorld(values.database, values.world);
  const total = (performance.now() - t0) / 1000;
  if (values.callers) writeFileSync(values.callers, `${JSON.stringify(out.callers)}\n`);
  const w = out.world;
  console.log(
    JSON.stringify({
      world: values.world,
      ...w,
      seconds: { ...out.seconds, total },
      likesPerSecond: Math.round(w.likes / out.seconds.likes),
    }),
  );
}
