// The cost of one demo order in process (no HTTP, no network): the open use case alone, the same
// with the PositionOpened subscribers (RecentlyInvested upkeep, trigger index), and the whole
// route through app.inject. Microseconds per order, on a fresh SQLite file with the server's settings.
// Usage: npm run build && node bench/trading-orders-inproc.mjs [orders] [--only usecase|http]
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../dist/app.js";
import { loadConfig } from "../dist/config.js";
import { systemActor } from "../dist/core/actor.js";
import { MemoryEventBus } from "../dist/infra/bus/memory.js";
import { withActor } from "../dist/modules/context.js";
import { createUser } from "../dist/modules/identity/create-user.js";
import { createKeyPair } from "../dist/modules/identity/key-pairs.js";
import { ensureInstrumentCatalog } from "../dist/modules/market/seed-catalog.js";
import { openMarketOrder } from "../dist/modules/trading/open-market-order.js";
import { closeDeps, createDeps } from "../dist/runtime.js";

const N = Number(process.argv[2] ?? 5000);
// --only usecase|http: one part (e.g. to profile it with node --cpu-prof).
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
const dir = mkdtempSync(join(tmpdir(), "sta-bench-inproc-"));
const config = loadConfig(
  { LOG_LEVEL: "silent", RATE_LIMITS_ENABLED: "false", DEMO_BALANCE: "100000000000", MARKET_TICK_MS: "1000" },
  { database: join(dir, "bench.db") },
);
const deps = await createDeps(config);
await ensureInstrumentCatalog(deps);
const operator = withActor(deps, systemActor("bench"));
const user = await createUser(operator, { username: "bench_orders", firstName: "B", lastName: "O" });
const key = await createKeyPair(operator, { user: user.id, scopes: ["demo:write"] });
const actor = {
  kind: "user",
  userId: user.id,
  gcid: user.gcid,
  via: "key-pair",
  credentialId: key.id,
  scopes: ["demo:write"],
  environment: "demo",
};
const input = { instrumentId: 1001, isBuy: true, leverage: 1, amount: 10 };

async function timeIt(label, run) {
  for (let i = 0; i < 200; i++) await run(); // warm up
  const t = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let i = 0; i < N; i++) await run();
  const used = process.cpuUsage(cpu);
  const us = Number(process.hrtime.bigint() - t) / 1000 / N;
  // CPU time is steadier than wall time on a shared machine; both are printed.
  const cpuUs = (used.user + used.system) / N;
  console.log(
    `${label.padEnd(40)} wall ${us.toFixed(0).padStart(5)} µs  cpu ${cpuUs.toFixed(0).padStart(5)} µs/order  (${Math.round(1e6 / us)} orders/s)`,
  );
  return us;
}

const ctx = withActor(deps, actor);
// The same context over deps whose bus has no subscribers (a context's prototype is its deps: 0200).
const quiet = Object.assign(Object.create(ctx), { bus: new MemoryEventBus(() => {}) });
if (only !== "http") await timeIt("use case, no subscribers", () => openMarketOrder(quiet, randomUUID(), input));
if (only !== "http")
  await timeIt("use case + PositionOpened subscribers", () => openMarketOrder(ctx, randomUUID(), input));
const app = await buildApp(config, deps);
const headers = { "x-api-key": key.apiKey, "x-user-key": key.userKey, "content-type": "application/json" };
const payload = JSON.stringify({ InstrumentID: 1001, IsBuy: true, Leverage: 1, Amount: 10 });
if (only !== "usecase")
  await timeIt("HTTP route via app.inject (all of it)", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/api/v1/trading/execution/demo/market-open-orders/by-amount",
      headers: { ...headers, "x-request-id": randomUUID() },
      payload,
    });
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  });
await app.close();
await closeDeps(deps);
rmSync(dir, { recursive: true, force: true });
