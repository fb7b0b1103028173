// EXPLAIN QUERY PLAN of people search's total and page for each of upstream's sorts and the bench's
// filter combinations (decision 0165), on a store filled by `node bench/people.mjs --keep`.
// Usage: npm run build && node bench/people-plans.mjs <store.db> [--time 20]
import { CompiledQuery } from "kysely";

const file = process.argv[2];
if (!file) throw new Error("usage: node bench/people-plans.mjs <store.db>");
const { loadConfig } = await import("../dist/config.js");
const { closeDeps, createDeps } = await import("../dist/runtime.js");
const { searchQueries } = await import("../dist/modules/people/search/people-search.repository.js");

const deps = await createDeps(
  loadConfig({ LOG_LEVEL: "silent", MARKET_TICK_MS: "0", SEED: "never" }, { database: file }),
);
const db = deps.db.kysely;
const query = (extra) => ({ period: "OneYearAgo", page: 1, pageSize: 20, ...extra });
const SORTS = [
  "gain",
  "dailyGain",
  "thisWeekGain",
  "riskScore",
  "maxDailyRiskScore",
  "maxMonthlyRiskScore",
  "copiers",
  "profitableMonthsPct",
  "weeksSinceRegistration",
  "userName",
];
const combos = {
  ...Object.fromEntries(
    SORTS.flatMap((s) => [
      [`-${s}`, query({ sort: `-${s}` })],
      [s, query({ sort: s })],
    ]),
  ),
  "risk 1-4, -gain": query({ maxDailyRiskScoreMin: 1, maxDailyRiskScoreMax: 4 }),
  "monthly risk ≤ 3, -gain": query({ maxMonthlyRiskScoreMax: 3 }),
  "country, popular, -gain": query({ period: "CurrMonth", countryId: 42, popularInvestor: false }),
  "gainMax, weeks, riskScore": query({ gainMax: 5, weeksSinceRegistrationMin: 20, sort: "riskScore" }),
  "optIn, -copiers": query({ optIn: true, sort: "-copiers" }),
  "instrument ≥ 50%": query({ instrumentId: 1001, instrumentPctMin: 50 }),
  "not instrument, page 50": query({ instrumentId: -1001, page: 50 }),
};
const explain = async (compiled) => {
  const rows = await db.executeQuery(CompiledQuery.raw(`explain query plan ${compiled.sql}`, compiled.parameters));
  return rows.rows.map((r) => r.detail).join(" | ");
};
// --time N: also each query's p50/p99 over N runs (ms, no HTTP).
const ti = process.argv.indexOf("--time");
const RUNS = ti >= 0 ? Number(process.argv[ti + 1]) : 0;
const timed = async (q) => {
  const xs = [];
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    await q.execute();
    xs.push(performance.now() - s);
  }
  xs.sort((a, b) => a - b);
  const at = (p) => Math.round(xs[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)] * 10) / 10;
  return RUNS ? ` [p50 ${at(0.5)} ms, p99 ${at(0.99)} ms]` : "";
};
for (const [name, q] of Object.entries(combos)) {
  const { total, rows } = searchQueries(db, q, 0, [], new Date());
  console.log(
    `${name}\n  total: ${await explain(total.compile())}${await timed(total)}\n  page:  ${await explain(rows.compile())}${await timed(rows)}`,
  );
}
await closeDeps(deps);
