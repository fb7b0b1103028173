// Where a snapshot pass spends its time: time per SQL statement (summed over the pass) and the rest
// (JavaScript: reads' mapping, figures, Kysely). Usage:
// npx tsc -b tsconfig.build.json && node bench/people-pass-profile.mjs [--accounts 10000] [--top 15] [--passes 2]
// (on consecutive days; from the third, the SQLite pass updates the table the last swap replaced: 0195)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { dayClock, fillPeopleWorld } from "./people-world.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg("accounts", 10_000);
const TOP = arg("top", 15);
const PASSES = arg("passes", 2);

// Time every statement run, keyed by its SQL's first words.
const probe = new Database(":memory:");
const Statement = probe.prepare("select 1").constructor;
probe.close();
const bySql = new Map();
let on = false;
for (const method of ["run", "all", "get", "iterate"]) {
  const original = Statement.prototype[method];
  Statement.prototype[method] = function (...args) {
    if (!on) return original.apply(this, args);
    const s = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      const key = this.source.replace(/\s+/g, " ").slice(0, 90);
      const e = bySql.get(key) ?? { ms: 0, n: 0 };
      e.ms += performance.now() - s;
      e.n++;
      bySql.set(key, e);
    }
  };
}

const { loadConfig } = await import("../dist/config.js");
const { closeDeps, createDeps } = await import("../dist/runtime.js");
const { ensureInstrumentCatalog } = await import("../dist/modules/market/seed-catalog.js");
const { currentQuotes } = await import("../dist/modules/market/quotes.js");
const { takeSnapshots } = await import("../dist/modules/people/history/take-snapshots.js");

const dir = mkdtempSync(join(tmpdir(), "sta-bench-pass-"));
const config = loadConfig(
  { LOG_LEVEL: "silent", MARKET_TICK_MS: "0", RATE_LIMITS_ENABLED: "false" },
  { database: join(dir, "bench.db") },
);
const deps = await createDeps(config);
await ensureInstrumentCatalog(deps);
await fillPeopleWorld(deps, N, { currentQuotes });
const now = deps.clock.now();
for (let k = 0; k < PASSES; k++) {
  const offset = k + 1 - PASSES;
  const day = new Date(now.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
  if (k > 0) for (let i = 0; i < 50; i++) await deps.market.tick();
  bySql.clear();
  on = true;
  const cpu = process.cpuUsage();
  const t = performance.now();
  const report = await takeSnapshots({ ...deps, clock: dayClock(day) });
  const wall = performance.now() - t;
  on = false;
  const used = process.cpuUsage(cpu);
  const sqlMs = [...bySql.values()].reduce((s, e) => s + e.ms, 0);
  console.log(
    `pass ${k + 1} (${report.accounts} accounts): wall ${Math.round(wall)} ms, CPU ${Math.round((used.user + used.system) / 1000)} ms, in SQLite ${Math.round(sqlMs)} ms (main thread)`,
  );
  if (report.writer)
    console.log(
      `  writer${report.writer.reused ? " (kept table)" : ""}: main waited ${Math.round(report.writer.waited)} ms for it, prune ${Math.round(report.writer.prune ?? 0)} ms, indexes ${Math.round(report.writer.indexes)} ms, swap ${Math.round(report.writer.swap)} ms`,
    );
  for (const [key, e] of [...bySql].sort((a, b) => b[1].ms - a[1].ms).slice(0, TOP))
    console.log(`  ${String(Math.round(e.ms)).padStart(7)} ms ${String(e.n).padStart(6)}×  ${key}`);
}
await closeDeps(deps);
rmSync(dir, { recursive: true, force: true });
