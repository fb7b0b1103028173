// The floor of a snapshot pass's people_stats writes, bare better-sqlite3 (decision 0180): the table and
// indexes of migrations 017+021 for N accounts x 10 periods, three passes: upserts in chunks, or (fresh)
// a fresh table appended in key order, indexed by create index, swapped in.
// Usage: node bench/people-bare-pass.mjs <accounts> <cache_size> <accounts per transaction> upsert|fresh
// Bare better-sqlite3: people_stats (schema of migrations 017+021) for N accounts x 10 periods.

import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import Database from "better-sqlite3";

const N = Number(process.argv[2] ?? 100000);
const cache = Number(process.argv[3] ?? 2000); // pages; negative = KiB
const chunk = Number(process.argv[4] ?? 500); // accounts per transaction
const mode = process.argv[5] ?? "upsert"; // upsert | fresh
const file = `${tmpdir()}/people-bare-${process.pid}.db`;
const db = new Database(file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.pragma(`cache_size = ${cache}`);
db.pragma("temp_store = MEMORY");
if (process.env.CKPT) db.pragma(`wal_autocheckpoint = ${process.env.CKPT}`);
const PERIODS = [
  "CurrMonth",
  "CurrQuarter",
  "CurrYear",
  "LastYear",
  "LastTwoYears",
  "OneMonthAgo",
  "TwoMonthsAgo",
  "ThreeMonthsAgo",
  "SixMonthsAgo",
  "OneYearAgo",
];
const table = (name) =>
  `create table ${name} (user_id text not null, period text not null, gain double precision not null, daily_gain double precision not null, week_gain double precision not null, risk_score integer not null, max_daily_risk integer not null, max_monthly_risk integer not null, profitable_months_pct double precision not null, copiers integer not null default 0, updated_at text not null, gcid integer not null default 0, username_lower text not null default '', country_code integer not null default 0, pi_level integer not null default 0, registered_at text not null default '', listed integer not null default 1, opt_out integer not null default 0, primary key (period, user_id))`;
const indexes = (name, sfx) => [
  `create index ${name}_user${sfx} on ${name} (user_id)`,
  ...[
    ["gain", "gain desc"],
    ["max_daily_risk", "max_daily_risk desc"],
    ["copiers", "copiers desc"],
    ["registered", "registered_at"],
    ["name", "username_lower"],
  ].map(([n, c]) => `create index ${name}_by_${n}${sfx} on ${name} (period, ${c}, gcid, listed)`),
  `create index ${name}_by_country${sfx} on ${name} (period, country_code, pi_level, listed, gcid)`,
];
db.exec(table("people_stats"));
for (const i of indexes("people_stats", "")) db.exec(i);
const users = Array.from({ length: N }, (_, i) => ({
  id: crypto.randomUUID(),
  gcid: i + 1,
  name: `bench_${i}`,
  country: 1 + (i % 200),
  reg: new Date(Date.now() - i * 1e6).toISOString(),
}));
users.sort((a, b) => (a.id < b.id ? -1 : 1));
const cols =
  "user_id, period, gain, daily_gain, week_gain, risk_score, max_daily_risk, max_monthly_risk, profitable_months_pct, copiers, updated_at, gcid, username_lower, country_code, pi_level, registered_at, listed, opt_out";
const row = (u, p, day) => [
  u.id,
  p,
  Math.random() * 100 - 50,
  Math.random() * 4 - 2,
  Math.random() * 6 - 3,
  1 + ((day + u.gcid) % 7),
  1 + (u.gcid % 10),
  1 + (u.gcid % 10),
  50,
  0,
  `2026-11-2${day}`,
  u.gcid,
  u.name,
  u.country,
  0,
  u.reg,
  1,
  0,
];
const upsert = db.prepare(
  `insert into people_stats (${cols}) values (${cols
    .split(",")
    .map(() => "?")
    .join(
      ",",
    )}) on conflict (period, user_id) do update set gain = excluded.gain, daily_gain = excluded.daily_gain, week_gain = excluded.week_gain, risk_score = excluded.risk_score, max_daily_risk = excluded.max_daily_risk, max_monthly_risk = excluded.max_monthly_risk, profitable_months_pct = excluded.profitable_months_pct, updated_at = excluded.updated_at where gain <> excluded.gain or daily_gain <> excluded.daily_gain or risk_score <> excluded.risk_score`,
);
function passUpsert(day) {
  const t = performance.now();
  for (let i = 0; i < N; i += chunk) {
    db.transaction(() => {
      for (const u of users.slice(i, i + chunk)) for (const p of PERIODS) upsert.run(row(u, p, day));
    })();
  }
  return performance.now() - t;
}
function passFresh(day) {
  const t = performance.now();
  db.exec("drop table if exists people_stats_next");
  db.exec(table("people_stats_next"));
  const ins = db.prepare(
    `insert into people_stats_next (${cols}) values (${cols
      .split(",")
      .map(() => "?")
      .join(",")})`,
  );
  // rows in primary-key order: period, then user
  for (let i = 0; i < N; i += chunk)
    db.transaction(() => {
      for (const p of PERIODS) for (const u of users.slice(i, i + chunk)) ins.run(row(u, p, day));
    })();
  const t1 = performance.now();
  for (const i of indexes("people_stats_next", `_${day}`)) db.exec(i);
  const t2 = performance.now();
  db.transaction(() => {
    db.exec("drop table people_stats");
    db.exec("alter table people_stats_next rename to people_stats");
  })();
  const t3 = performance.now();
  console.log(
    `  fresh: rows ${Math.round(t1 - t)} ms, indexes ${Math.round(t2 - t1)} ms, swap ${Math.round(t3 - t2)} ms`,
  );
  return performance.now() - t;
}
for (const day of [1, 2, 3]) {
  const ms = mode === "fresh" && day > 1 ? passFresh(day) : passUpsert(day);
  console.log(`N=${N} cache=${cache} chunk=${chunk} ${day > 1 ? mode : "upsert"} pass ${day}: ${Math.round(ms)} ms`);
}
db.close();
rmSync(file, { force: true });
rmSync(file + "-wal", { force: true });
rmSync(file + "-shm", { force: true });
