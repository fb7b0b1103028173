// EXPLAIN QUERY PLAN of people search's total and page for each of upstream's sorts and the bench's
// filter combinations (decision 0165), on a store filled by `node bench/people.mjs --keep`.
// Usage: npm run build && node bench/people-plans.mjs <store.db> [--time 20]
// --time N: each query's p50/p99 over N runs, and the answer's (total then page): no kept answers.
import { CompiledQuery } from "kysely";
import { peopleCombos } from "./people-combos.mjs";

const file = process.argv[2];
if (!file) throw new Error("usage: node bench/people-plans.mjs <store.db>");
const { loadConfig } = await import("../dist/config.js");
const { closeDeps, createDeps } = await import("../dist/runtime.js");
const { searchQueries, searchTotal } = await import("../dist/modules/people/search/people-search.repository.js");
// The page as search makes it (one query, or the walk by value of decision 0188); absent before 0188.
const searchPage = await import("../dist/modules/people/search/search-page.js").then(
  (m) => m.searchPage,
  () => undefined,
);

const deps = await createDeps(
  loadConfig({ LOG_LEVEL: "silent", MARKET_TICK_MS: "0", SEED: "never" }, { database: file }),
);
const db = deps.db.kysely;
const combos = peopleCombos();
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
const answers = [];
for (const [name, q] of Object.entries(combos)) {
  const total = searchTotal(db, q, 0, [], new Date());
  const n = Number((await total.executeTakeFirst())?.n ?? 0);
  // The page as search makes it: knowing the total (counted first).
  const { rows, ascending } = searchQueries(db, q, 0, [], new Date(), n);
  const page = { execute: () => (searchPage ? searchPage(db, q, 0, [], new Date(), n) : rows.execute()) };
  const answer = {
    execute: async () => {
      const counted = Number((await total.executeTakeFirst())?.n ?? 0);
      return searchPage ? searchPage(db, q, 0, [], new Date(), counted) : rows.execute();
    },
  };
  const how = ascending ? "walk by value over the sort's index; " : "";
  const t = await timed(answer);
  answers.push(`  ${name.padEnd(32)}${t}`);
  console.log(
    `${name}\n  total: ${await explain(total.compile())}${await timed(total)}\n  page:  ${how}${await explain(rows.compile())}${await timed(page)}\n  answer:${t}`,
  );
}
if (RUNS) console.log(`\nanswers (total then page, no kept answers, ${RUNS} runs each):\n${answers.join("\n")}`);
await closeDeps(deps);
