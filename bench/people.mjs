// People search and the daily snapshot at scale (issue 16, item 8), in process on SQLite.
// Usage: npm run build && node bench/people.mjs [--accounts 100000] [--queries 300] [--first 10] [--batch 500] [--keep] [--analyze]
// (--keep leaves the filled SQLite store for EXPLAIN QUERY PLAN: bench/people-plans.mjs <store>)
//
// Fills a temp SQLite store with N users, each with a demo account and one open position (random
// instrument, side, leverage, size), then:
// 1. the daily snapshot of every account (`takeSnapshots`, as the leader runs it) twice, on two
//    consecutive days with the prices moved between them, timed (target: under 60 s per pass);
// 2. people search through the app (`app.inject`: auth, validation, the query, serialisation) with
//    several filter/sort combinations over the N users, p50/p99 per combination, against
//    `GET /api/v1/user-info/privacy` (an authenticated one-row read) in the same run (target p99 < 50 ms);
//    then each combination's FIRST answer (`--first` samples each, default queries ÷ 10): the token of
//    search's rows is bumped before every sample, as a pass or a privacy change does, so no kept
//    answer (decision 0181) helps; every sort both ways and more filters (bench/people-combos.mjs);
// 3. the p99 of a read (`GET …/people/{username}/gain`) while idle and while a third snapshot pass runs
//    (target: during < 2 × idle).
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { peopleCombos, queryString } from "./people-combos.mjs";
import { dayClock, fillPeopleWorld } from "./people-world.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg("accounts", 100_000);
const QUERIES = arg("queries", 300);
const BATCH = arg("batch", 500);
const FIRST = arg("first", Math.max(1, Math.floor(QUERIES / 10)));
const KEEP = process.argv.includes("--keep");
// `analyze` after the passes, as the bench worlds do (bench/world/seed.mjs): the planner then uses
// sqlite_stat1, which is what a store that ran `analyze` (or `pragma optimize`) plans with.
const ANALYZE = process.argv.includes("--analyze");

const { loadConfig } = await import("../dist/config.js");
const { closeDeps, createDeps } = await import("../dist/runtime.js");
const { buildApp } = await import("../dist/app.js");
const { ensureInstrumentCatalog } = await import("../dist/modules/market/seed-catalog.js");
const { currentQuotes } = await import("../dist/modules/market/quotes.js");
const { takeSnapshots } = await import("../dist/modules/people/history/take-snapshots.js");
const { createUser } = await import("../dist/modules/identity/create-user.js");
const { createKeyPair } = await import("../dist/modules/identity/key-pairs.js");
const { withActor } = await import("../dist/modules/context.js");
const { systemActor } = await import("../dist/core/actor.js");

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const ms = (x) => Math.round(x * 100) / 100;
// The bulk writer's share of a pass (SQLite file, decision 0180), in seconds.
const writerOf = (report) =>
  report.writer &&
  Object.fromEntries(Object.entries(report.writer).map(([k, v]) => [k, typeof v === "number" ? ms(v / 1000) : v]));
const writerText = (report) => {
  const w = writerOf(report);
  return w
    ? ` (${Object.entries(w)
        .map(([k, v]) => (typeof v === "number" ? `${k} ${v} s` : `${k} ${v}`))
        .join(", ")})`
    : "";
};

const dir = mkdtempSync(join(tmpdir(), "sta-bench-people-"));
const config = loadConfig(
  { LOG_LEVEL: "silent", MARKET_TICK_MS: "0", RATE_LIMITS_ENABLED: "false" },
  { database: join(dir, "bench.db") },
);
const deps = await createDeps(config);
await ensureInstrumentCatalog(deps);
const db = deps.db.kysely;
console.log(`filling ${N} users, accounts and positions…`);
let t = performance.now();
const now = deps.clock.now();
await fillPeopleWorld(deps, N, { currentQuotes });
console.log(`filled in ${ms((performance.now() - t) / 1000)} s`);

const today = now.toISOString().slice(0, 10);
const yesterday = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
const passes = [];
for (const [k, day] of [yesterday, today].entries()) {
  if (k > 0) for (let i = 0; i < 50; i++) await deps.market.tick();
  t = performance.now();
  const report = await takeSnapshots({ ...deps, clock: dayClock(day) }, undefined, BATCH);
  passes.push({
    day,
    accounts: report.accounts,
    seconds: ms((performance.now() - t) / 1000),
    writer: writerOf(report),
  });
  console.log(`snapshot of ${report.accounts} accounts for ${day}: ${passes.at(-1).seconds} s${writerText(report)}`);
}

if (ANALYZE) {
  await sql`analyze`.execute(db);
  console.log("analyzed");
}
const app = await buildApp(config, deps);
const operator = withActor(deps, systemActor("bench"));
const searcher = await createUser(operator, { username: "bench_searcher" });
const key = await createKeyPair(operator, { user: searcher.id, scopes: ["user-info:read"] });
const headers = { "x-api-key": key.apiKey, "x-user-key": key.userKey };
const timeGet = async (url) => {
  const s = performance.now();
  const res = await app.inject({ method: "GET", url, headers: { ...headers, "x-request-id": randomUUID() } });
  const d = performance.now() - s;
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  return d;
};

const SEARCH = "/api/v1/user-info/people/search";
const combos = {
  "default (-gain)": "period=OneYearAgo",
  "-copiers": "period=CurrYear&sort=-copiers",
  "risk 1-4, -gain": "period=OneYearAgo&maxDailyRiskScoreMin=1&maxDailyRiskScoreMax=4",
  "country, popular, -gain": "period=CurrMonth&countryId=42&popularInvestor=false",
  "gainMax, weeks, riskScore": "period=OneYearAgo&gainMax=5&weeksSinceRegistrationMin=20&sort=riskScore",
  "instrument ≥ 50%": "period=OneYearAgo&instrumentId=1001&instrumentPctMin=50",
  "not instrument, page 50": "period=OneYearAgo&instrumentId=-1001&page=50&pageSize=20",
  "userName asc": "period=OneYearAgo&sort=userName",
};
const baselineUrl = "/api/v1/user-info/privacy";
for (let i = 0; i < 30; i++) await timeGet(baselineUrl);
const results = {};
const baseline = [];
for (const [name, q] of Object.entries(combos)) {
  const times = [];
  for (let i = 0; i < 10; i++) await timeGet(`${SEARCH}?${q}`);
  for (let i = 0; i < QUERIES / 10; i++) {
    times.push(await timeGet(`${SEARCH}?${q}`));
    baseline.push(await timeGet(baselineUrl));
  }
  results[name] = { p50: ms(pct(times, 50)), p99: ms(pct(times, 99)) };
}
const baseP99 = ms(pct(baseline, 99));
console.log(`\nsearch over ${N} users (ms; baseline ${baselineUrl}: p50 ${ms(pct(baseline, 50))}, p99 ${baseP99})`);
for (const [name, r] of Object.entries(results)) {
  console.log(
    `  ${name.padEnd(28)} p50 ${String(r.p50).padStart(7)}  p99 ${String(r.p99).padStart(7)}  ×${ms(r.p99 / baseP99)} of baseline p99 ${r.p99 < 50 ? "MET" : "MISSED"}`,
  );
}

// First answers: the token bumped before each sample (what a pass, a privacy or copiers change does).
const bump = () =>
  db
    .insertInto("peopleStatsVersion")
    .values({ id: 1, token: Math.floor(Math.random() * 2 ** 40) })
    .onConflict((oc) => oc.column("id").doUpdateSet({ token: (eb) => eb.ref("excluded.token") }))
    .execute();
const first = {};
const firstBase = [];
for (const [name, q] of Object.entries(peopleCombos())) {
  const times = [];
  for (let i = 0; i < FIRST; i++) {
    await bump();
    times.push(await timeGet(`${SEARCH}?${queryString(q)}`));
    firstBase.push(await timeGet(baselineUrl));
  }
  first[name] = { p50: ms(pct(times, 50)), p99: ms(pct(times, 99)) };
}
const firstBaseP99 = ms(pct(firstBase, 99));
console.log(
  `\nfirst answers (token bumped before each; ${FIRST} each; ms; baseline p50 ${ms(pct(firstBase, 50))}, p99 ${firstBaseP99})`,
);
for (const [name, r] of Object.entries(first)) {
  console.log(
    `  ${name.padEnd(32)} p50 ${String(r.p50).padStart(8)}  p99 ${String(r.p99).padStart(8)}  ${r.p99 < 50 ? "MET" : "MISSED"}`,
  );
}

// A read while idle, then while a snapshot pass runs (the next day).
const pub = await db
  .selectFrom("users")
  .select("username")
  .where("isPrivate", "=", 0)
  .where("username", "like", "bench_%")
  .limit(1)
  .executeTakeFirstOrThrow();
const READ = `/api/v1/user-info/people/${pub.username}/gain`;
const idle = [];
for (let i = 0; i < 300; i++) idle.push(await timeGet(READ));
const during = [];
let done = false;
const tomorrow = new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10);
t = performance.now();
const pass = takeSnapshots({ ...deps, clock: dayClock(tomorrow) }, undefined, BATCH).then((r) => {
  done = true;
  return r;
});
while (!done) {
  during.push(await timeGet(READ));
  await new Promise((r) => setImmediate(r));
}
const thirdReport = await pass;
const third = ms((performance.now() - t) / 1000);
const idleP99 = ms(pct(idle, 99));
const duringP99 = ms(pct(during, 99));
console.log(
  `\nsnapshot passes: ${passes.map((p) => `${p.seconds} s`).join(", ")}, with reads: ${third} s${writerText(thirdReport)} (target < 60 s)`,
);
console.log(
  `read p99 idle ${idleP99} ms, during the pass ${duringP99} ms (${during.length} reads): ×${ms(duringP99 / idleP99)} (target < 2×) ${duringP99 < 2 * idleP99 ? "MET" : "MISSED"}`,
);

mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(
  new URL("./results/people.json", import.meta.url),
  `${JSON.stringify({ accounts: N, batch: BATCH, passes, thirdPassWithReads: third, thirdWriter: writerOf(thirdReport), search: results, first, firstBaseline: { p50: ms(pct(firstBase, 50)), p99: firstBaseP99 }, baseline: { p50: ms(pct(baseline, 50)), p99: baseP99 }, read: { idleP99, duringP99, reads: during.length } }, null, 2)}\n`,
);
await app.close();
await closeDeps(deps);
if (KEEP) console.log(`kept the store: ${join(dir, "bench.db")}`);
else rmSync(dir, { recursive: true, force: true });
