// CPU per request in process (app.inject, no sockets): /health against a cached
// GET /api/v1/posts/{postId} with a key pair and limits on. Shows what our per-request machinery
// costs beyond the framework's, steadily on a shared machine (CPU time, not wall time).
// Usage: npm run build && node bench/micro-request.mjs [requests]
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../dist/app.js";
import { loadConfig } from "../dist/config.js";
import { systemActor } from "../dist/core/actor.js";
import { withActor } from "../dist/modules/context.js";
import { createUser } from "../dist/modules/identity/create-user.js";
import { createKeyPair } from "../dist/modules/identity/key-pairs.js";
import { ensureInstrumentCatalog } from "../dist/modules/market/seed-catalog.js";
import { closeDeps, createDeps } from "../dist/runtime.js";

const N = Number(process.argv[2] ?? 20000);
const dir = mkdtempSync(join(tmpdir(), "sta-bench-request-"));
const config = loadConfig(
  { LOG_LEVEL: "warn", RATE_LIMIT_DEFAULT: "1000000000/60s", RATE_LIMIT_FEED: "1000000000/60s", MARKET_TICK_MS: "0" },
  { database: join(dir, "bench.db") },
);
const deps = await createDeps(config);
await ensureInstrumentCatalog(deps);
const app = await buildApp(config, deps);
const operator = withActor(deps, systemActor("bench"));
const user = await createUser(operator, { username: "bench_reader", firstName: "B", lastName: "R" });
const key = await createKeyPair(operator, { user: user.id, scopes: ["feed:read", "feed:write"] });
const headers = { "x-api-key": key.apiKey, "x-user-key": key.userKey, "x-request-id": randomUUID() };
const created = await app.inject({
  method: "POST",
  url: "/api/v1/posts",
  headers,
  payload: { message: "Bench post", tags: { tags: [{ id: "1001" }] } },
});
const postId = created.json().id;

async function cpuPerRequest(label, request) {
  for (let i = 0; i < 500; i++) await app.inject(request);
  const cpu = process.cpuUsage();
  for (let i = 0; i < N; i++) await app.inject(request);
  const used = process.cpuUsage(cpu);
  const us = (used.user + used.system) / N;
  console.log(`${label.padEnd(36)} ${us.toFixed(1).padStart(6)} µs CPU per request`);
  return us;
}

const health = await cpuPerRequest("GET /health", { method: "GET", url: "/health" });
const post = await cpuPerRequest("GET /api/v1/posts/{postId} (cached)", {
  method: "GET",
  url: `/api/v1/posts/${postId}`,
  headers,
});
const feed = await cpuPerRequest("GET /api/v1/feeds/markets/1001 (cached)", {
  method: "GET",
  url: "/api/v1/feeds/markets/1001",
  headers,
});
console.log(`post - health: ${(post - health).toFixed(1)} µs; feed - health: ${(feed - health).toFixed(1)} µs`);
await app.close();
await closeDeps(deps);
rmSync(dir, { recursive: true, force: true });
