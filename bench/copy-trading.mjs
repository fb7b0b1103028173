// A trader with N copiers opens a position (issue 15, item 7): how long until every copy is open,
// copy opens per second, and the trader's own order latency with N copiers against the same order
// with none, in the same run and process (temp SQLite file, the real engine and use cases).
// Usage: npm run build && node bench/copy-trading.mjs [--copiers 10000] [--orders 20]
// Target: all copies open within 2 s; the trader's median order latency unchanged (ratio ≈ 1).
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { loadConfig } from "../dist/config.js";
import { systemActor } from "../dist/core/actor.js";
import { transact, withActor } from "../dist/modules/context.js";
import { mirrorEngineOf } from "../dist/modules/copy-trading/mirrors/mirror-engine.js";
import { startMirror } from "../dist/modules/copy-trading/mirrors/start-mirror.js";
import { createUser } from "../dist/modules/identity/create-user.js";
import { ensureInstrumentCatalog } from "../dist/modules/market/seed-catalog.js";
import { openMarketOrder } from "../dist/modules/trading/open-market-order.js";
import { closeDeps, createDeps } from "../dist/runtime.js";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const COPIERS = arg("copiers", 10_000);
const ORDERS = arg("orders", 20);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = mkdtempSync(join(tmpdir(), "copy-bench-"));
const config = loadConfig({ DATABASE_URL: join(dir, "bench.db"), LOG_LEVEL: "warn", RATE_LIMITS_ENABLED: "false" });
const deps = await createDeps(config);
try {
  await ensureInstrumentCatalog(deps);
  const operator = withActor(deps, systemActor("bench"));
  const actorOf = (u) => ({
    kind: "user",
    userId: u.id,
    gcid: u.gcid,
    via: "key-pair",
    credentialId: "bench",
    scopes: ["trade.demo:write"],
    environment: "demo",
  });
  const trader = actorOf(await createUser(operator, { username: "bench-trader" }));
  // 1,000 USD orders: each copier (10,000 USD against the trader's ~100,000) copies at ~10%, ~100 USD.
  const order = async () => {
    const t = performance.now();
    await openMarketOrder(withActor(deps, trader), randomUUID(), {
      instrumentId: 1001,
      isBuy: true,
      leverage: 1,
      amount: 1_000,
    });
    return performance.now() - t;
  };
  // Baseline: the trader's orders with no copier.
  for (let i = 0; i < 5; i++) await order();
  const alone = [];
  for (let i = 0; i < ORDERS; i++) alone.push(await order());

  const setup = performance.now();
  for (let i = 0; i < COPIERS; i++) {
    const copier = actorOf(await createUser(operator, { username: `bench-copier-${i}` }));
    await transact(deps, (trx) =>
      startMirror(deps, trx, copier, {
        parentUserId: trader.userId,
        investmentCents: 1_000_000,
        stopLossCents: 0,
        agentPortfolioId: null,
      }),
    );
  }
  console.log(`setup: ${COPIERS} copiers in ${((performance.now() - setup) / 1000).toFixed(1)} s`);
  const engine = mirrorEngineOf(deps);
  await engine.idle();

  // The measured open: the trader's answer, then every copy.
  const t0 = performance.now();
  const latency = await order();
  await engine.idle();
  const allOpen = performance.now() - t0;
  const opened = Number(
    (
      await deps.db.kysely
        .selectFrom("demoPositions")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("mirrorId", "is not", null)
        .executeTakeFirst()
    ).n,
  );
  // The trader's orders while copies are being opened for each.
  const busy = [];
  for (let i = 0; i < Math.min(ORDERS, 3); i++) busy.push(await order());
  await engine.idle();

  console.log(
    `copies opened: ${opened} (expected ${COPIERS}) in ${(allOpen / 1000).toFixed(2)} s → ${Math.round(opened / (allOpen / 1000))} copy opens/s`,
  );
  console.log(`target all within 2 s: ${allOpen <= 2000 ? "MET" : "MISSED"}`);
  console.log(
    `trader order latency: alone median ${median(alone).toFixed(2)} ms; with ${COPIERS} copiers ${latency.toFixed(2)} ms (ratio ${(latency / median(alone)).toFixed(2)}); ` +
      `while copies open median ${median(busy).toFixed(2)} ms (ratio ${(median(busy) / median(alone)).toFixed(2)})`,
  );
} finally {
  await closeDeps(deps);
  rmSync(dir, { recursive: true, force: true });
}
