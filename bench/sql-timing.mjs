// Where a server's SQLite time goes, statement by statement: a preload (`node --import
// ./bench/sql-timing.mjs dist/main.js serve …`) that wraps better-sqlite3's Statement run/get/all/
// iterate and, when the process ends (SIGTERM or exit), writes each SQL text's calls, total and
// mean microseconds (wall time of the native call) and connection (W writer, R reader), slowest first, to SQL_TIMING_OUT (default
// ./sql-timing.txt). bench/lib.mjs's startApp passes node arguments: startApp(env, ["--import",
// "./bench/sql-timing.mjs"]). It adds a few microseconds per statement: compare texts, not runs.
import { writeFileSync } from "node:fs";
import Database from "better-sqlite3";

const probe = new Database(":memory:");
const Statement = Object.getPrototypeOf(probe.prepare("select 1"));
probe.close();
const stats = new Map();
for (const name of ["run", "get", "all", "iterate"]) {
  const original = Statement[name];
  Statement[name] = function timed(...args) {
    const t = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const us = Number(process.hrtime.bigint() - t) / 1000;
      // W: the writer connection, R: the read-only reader (decision 0186).
      const key = `${this.database.readonly ? "R" : "W"} ${this.source.replace(/\s+/g, " ").slice(0, 160)}`;
      const s = stats.get(key) ?? { calls: 0, us: 0 };
      s.calls += 1;
      s.us += us;
      stats.set(key, s);
    }
  };
}
let written = false;
function write() {
  // A process that ran no statement (the bench driver itself, under NODE_OPTIONS) writes nothing.
  if (written || stats.size === 0) return;
  written = true;
  const lines = [...stats]
    .sort((a, b) => b[1].us - a[1].us)
    .map(
      ([sql, s]) =>
        `${String(s.calls).padStart(8)} ${s.us.toFixed(0).padStart(10)} µs ${(s.us / s.calls).toFixed(1).padStart(8)} µs/call  ${sql}`,
    );
  writeFileSync(process.env.SQL_TIMING_OUT ?? "sql-timing.txt", `${lines.join("\n")}\n`);
}
process.on("exit", write);
// serve shuts down on SIGTERM by itself; the figures are written first.
process.once("SIGTERM", write);
