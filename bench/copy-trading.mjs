// A trader with N copiers opens a position (issue 15, item 7): how long until every copy is open,
// copy opens per second, and the trader's own order latency with N copiers against the same order
// with none, in the same run and process (temp SQLite file, the real engine and use cases).
// Then the trader closes that position: how long until every copy is closed (decision 0162), and
// one sweep of the engine with nothing left to do (what a server pays every 15 ticks).
// Usage: npm run build && node bench/copy-trading.mjs [--copiers 10000] [--orders 20] [--rounds 3]
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
import { closePosition } from "../dist/modules/trading/close-position.js";
import { openMarketOrder } from "../dist/modules/trading/open-market-order.js";
import { closeDeps, createDeps } from "../dist/runtime.js";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const COPIERS = arg("copiers", 10_000);
const ORDERS = arg("orders", 20);
const ROUNDS = arg("rounds", 3);
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
  // The trader's closes with no copier: the baseline of the close measured below.
  const close = async (positionId) => {
    const t = performance.now();
    await closePosition(withActor(deps, trader), randomUUID(), positionId, { instrumentId: 1001 });
    return performance.now() - t;
  };
  const closesAlone = [];
  for (const { positionId } of (
    await deps.db.kysely.selectFrom("demoPositions").select("positionId").where("userId", "=", trader.userId).execute()
  ).slice(0, ORDERS)) {
    closesAlone.push(await close(positionId));
  }

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

  const countCopies = async (where) =>
    Number(
      (
        await where(
          deps.db.kysely.selectFrom("demoPositions").select((eb) => eb.fn.countAll().as("n")),
        ).executeTakeFirst()
      ).n,
    );
  // The measured opens, ROUNDS times: the trader's answer, then every copy.
  const triggering = [];
  const openTimes = [];
  const openCpu = [];
  let opened = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const before = await countCopies((q) => q.where("mirrorId", "is not", null));
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    triggering.push(await order());
    await engine.idle();
    openTimes.push(performance.now() - t0);
    const cpu = process.cpuUsage(cpu0);
    openCpu.push((cpu.user + cpu.system) / 1000);
    opened = (await countCopies((q) => q.where("mirrorId", "is not", null))) - before;
    console.log(
      `round ${r + 1}: ${opened} copies (expected ${COPIERS}) in ${(openTimes.at(-1) / 1000).toFixed(2)} s (process CPU ${(openCpu.at(-1) / 1000).toFixed(2)} s) → ${Math.round(opened / (openTimes.at(-1) / 1000))} copy opens/s; the trader's order ${triggering.at(-1).toFixed(2)} ms`,
    );
  }
  // The trader's orders while copies are being opened for the first of them.
  const busy = [];
  for (let i = 0; i < Math.min(ORDERS, 5); i++) busy.push(await order());
  await engine.idle();

  // The trader closes the first measured position: its answer, then every copy closed.
  const { parentPositionId } = await deps.db.kysely
    .selectFrom("demoPositions")
    .select("parentPositionId")
    .where("mirrorId", "is not", null)
    .orderBy("positionId")
    .limit(1)
    .executeTakeFirstOrThrow();
  const c0 = performance.now();
  const ccpu0 = process.cpuUsage();
  const closeLatency = await close(parentPositionId);
  await engine.idle();
  const allClosed = performance.now() - c0;
  const ccpu = process.cpuUsage(ccpu0);
  const stillOpen = await countCopies((q) =>
    q.where("parentPositionId", "=", parentPositionId).where("status", "=", "open"),
  );
  const s0 = performance.now();
  await engine.sweep();
  const sweep = performance.now() - s0;

  const best = Math.min(...openTimes);
  console.log(
    `copies opened: median ${(median(openTimes) / 1000).toFixed(2)} s, best ${(best / 1000).toFixed(2)} s for ${COPIERS} → ${Math.round(COPIERS / (median(openTimes) / 1000))} copy opens/s (median round); process CPU median ${(median(openCpu) / 1000).toFixed(2)} s`,
  );
  console.log(`target all within 2 s: ${median(openTimes) <= 2000 ? "MET" : "MISSED"} (median round)`);
  console.log(
    `trader's close: answered in ${closeLatency.toFixed(2)} ms against ${median(closesAlone).toFixed(2)} ms alone (ratio ${(closeLatency / median(closesAlone)).toFixed(2)}); its ${COPIERS} copies closed (${stillOpen} left open) in ${(allClosed / 1000).toFixed(2)} s (process CPU ${((ccpu.user + ccpu.system) / 1e6).toFixed(2)} s) → ${Math.round(COPIERS / (allClosed / 1000))} copy closes/s`,
  );
  console.log(`one sweep with nothing to do: ${sweep.toFixed(1)} ms`);
  console.log(
    `trader order latency: alone median ${median(alone).toFixed(2)} ms; the order that sets off ${COPIERS} copies median ${median(triggering).toFixed(2)} ms (ratio ${(median(triggering) / median(alone)).toFixed(2)}); ` +
      `while copies open median ${median(busy).toFixed(2)} ms (ratio ${(median(busy) / median(alone)).toFixed(2)})`,
  );
} finally {
  await closeDeps(deps);
  rmSync(dir, { recursive: true, force: true });
}
