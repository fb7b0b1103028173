// CPU per order in process, many callers at once (no sockets, no load generator): 100 users, each with
// its own key pair, send orders back to back through app.inject, so group commit batches them as in
// serve; the copy engine is drained before the clock stops. Prints CPU (user, system) per order.
// Usage: npm run build && node bench/trading-orders-concurrent.mjs [dist folder, default ./dist] [orders]
// With --import ./bench/sql-timing.mjs before the script: per-statement SQLite times (decision 0183).

import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = process.argv[2] ?? fileURLToPath(new URL("../dist/", import.meta.url));
const N = Number(process.argv[3] ?? 20000);
const imp = (p) => import(join(dist, p));
const { buildApp } = await imp("app.js");
const { loadConfig } = await imp("config.js");
const { systemActor } = await imp("core/actor.js");
const { withActor } = await imp("modules/context.js");
const { createUser } = await imp("modules/identity/create-user.js");
const { createKeyPair } = await imp("modules/identity/key-pairs.js");
const { ensureInstrumentCatalog } = await imp("modules/market/seed-catalog.js");
const { mirrorEngineOf } = await imp("modules/copy-trading/mirrors/mirror-engine.js");
const { closeDeps, createDeps } = await imp("runtime.js");
const dir = mkdtempSync(join(tmpdir(), "sta-conc-"));
const config = loadConfig(
  {
    LOG_LEVEL: "silent",
    RATE_LIMITS_ENABLED: "false",
    DEMO_BALANCE: "100000000000",
    MARKET_TICK_MS: "1000",
    SEED: "never",
  },
  { database: join(dir, "bench.db") },
);
const deps = await createDeps(config);
await ensureInstrumentCatalog(deps);
const operator = withActor(deps, systemActor("bench"));
const callers = [];
for (let i = 0; i < 100; i++) {
  const user = await createUser(operator, { username: `conc_${i}`, firstName: "B", lastName: "O" });
  const key = await createKeyPair(operator, { user: user.id, scopes: ["trade.demo:write"] });
  callers.push({ "x-api-key": key.apiKey, "x-user-key": key.userKey, "content-type": "application/json" });
}
const app = await buildApp(config, deps);
const payload = JSON.stringify({ InstrumentID: 1001, IsBuy: true, Leverage: 1, Amount: 10 });
async function round(n) {
  let left = n;
  await Promise.all(
    callers.map(async (headers) => {
      while (left-- > 0) {
        const res = await app.inject({
          method: "POST",
          url: "/api/v1/trading/execution/demo/market-open-orders/by-amount",
          headers: { ...headers, "x-request-id": randomUUID() },
          payload,
        });
        if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
      }
    }),
  );
  await mirrorEngineOf(deps)?.idle();
}
await round(3000);
const t = process.hrtime.bigint();
const cpu = process.cpuUsage();
await round(N);
const used = process.cpuUsage(cpu);
const wall = Number(process.hrtime.bigint() - t) / 1e3;
console.log(
  JSON.stringify({
    dist,
    orders: N,
    cpuUsPerOrder: Math.round((used.user + used.system) / N),
    userUs: Math.round(used.user / N),
    sysUs: Math.round(used.system / N),
    wallOrdersPerSecond: Math.round(N / (wall / 1e6)),
  }),
);
await app.close();
await closeDeps(deps);
rmSync(dir, { recursive: true, force: true });
