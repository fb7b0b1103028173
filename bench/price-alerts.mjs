// The market engine with 1,000,000 active price alerts against the same engine without any (issue 17,
// item 6): ticks per second and process memory, in the same run, alternating rounds.
// Usage: npm run build && node bench/price-alerts.mjs [--alerts 1000000] [--ticks 2000] [--rounds 15]
//          [--volatility 0.00002]
//
// Each side is its own child process (so that the side without alerts does not carry the other's heap,
// nor its garbage collections) holding the deps `createDeps` makes on a temp SQLite file: the real
// MarketEngine over the catalog's instruments with every tick listener it registers on one instance
// (tick counter, real-time hub, trading triggers, the price-alert watch, position updates). The alerts side fills
// `deps.alerts.index` with N alerts spread round-robin over the instruments, half above and half
// below the bid, 1% to 30% from it (log-uniform), times the instrument's volatility factor (a crypto
// alert sits further out than a currency one): in a calm market (--volatility, below) almost none
// is reached. Ticks are driven with `market.tick()` back to back (MARKET_TICK_MS=0, no timer), each
// awaiting its listeners. An alert that is reached fires through `fireAlert` (its transaction finds
// no row: the alerts are in the index only, so no notification is written) and leaves the index.
// Target (issue 17): ticks per second with alerts at least 80% of without.
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "../dist/core/random.js";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const ALERTS = Number(arg("alerts", 1_000_000));
// Many short rounds: on a shared machine the load moves within seconds, and neighbouring rounds of
// the two sides see about the same.
const TICKS = Number(arg("ticks", 2_000));
const ROUNDS = Number(arg("rounds", 15));
// Per-tick volatility of the walk on both sides (MARKET_VOLATILITY; the engine's default is 0.0004).
// Ticking flat out compresses hours of market into seconds: at the default, this run's walk would
// reach a large share of the alerts and the figure would be the cost of firing them (a transaction
// each), not of watching them. The engine's work per tick does not depend on it.
const VOLATILITY = arg("volatility", "0.00002");
const WARMUP_TICKS = Math.min(TICKS, 1_000);

const mb = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

if (process.argv.includes("--child")) await child();
else await parent();

async function child() {
  const { loadConfig } = await import("../dist/config.js");
  const { closeDeps, createDeps } = await import("../dist/runtime.js");
  const { startMarket, toPriced } = await import("../dist/modules/market/quotes.js");
  const { listInstruments } = await import("../dist/modules/market/find-instruments.js");
  const alerts = Number(arg("child-alerts", 0));
  const dir = mkdtempSync(join(tmpdir(), "sta-bench-alerts-"));
  const config = loadConfig(
    { LOG_LEVEL: "silent", MARKET_TICK_MS: "0", MARKET_VOLATILITY: arg("child-volatility") },
    { database: join(dir, "bench.db") },
  );
  const deps = await createDeps(config);
  await startMarket(deps); // the catalog, every instrument priced; no timer with MARKET_TICK_MS=0
  const instruments = (await listInstruments(deps)).map(toPriced);
  const memory = () => {
    globalThis.gc();
    const m = process.memoryUsage();
    return { rss: m.rss, heapUsed: m.heapUsed };
  };
  const empty = memory();

  // Deterministic placement, so runs are comparable. The ids are UUIDs as flat strings, as the store
  // hands them to `loadAlerts` (randomUUID's own result is a rope of several strings until flattened).
  const random = mulberry32(12345);
  const { index } = deps.alerts;
  let build;
  if (alerts > 0) {
    const pending = new Array(alerts);
    for (let i = 0; i < alerts; i++) {
      const instrument = instruments[i % instruments.length];
      const { bid } = deps.market.quote(instrument.instrumentId);
      const above = random() < 0.5;
      const distance = 0.01 * 30 ** random() * instrument.volatilityFactor; // 1%..30%, log-uniform
      const f = 10 ** instrument.precision;
      const targetPrice = Math.round((above ? bid * (1 + distance) : bid / (1 + distance)) * f) / f;
      pending[i] = {
        alertId: Buffer.from(randomUUID(), "latin1").toString("latin1"),
        instrumentId: instrument.instrumentId,
        targetPrice,
        direction: above ? "above" : "below",
      };
    }
    const cpu = process.cpuUsage();
    const t = performance.now();
    for (let i = 0; i < alerts; i++) index.add(pending[i]);
    const ms = performance.now() - t;
    const used = process.cpuUsage(cpu);
    pending.length = 0;
    build = { ms, cpuMs: (used.user + used.system) / 1000 };
  }
  const loaded = memory();
  process.send({ ready: true, alerts, watched: index.size, instruments: instruments.length, empty, loaded, build });

  // Garbage collection inside the rounds: its marking grows with the live heap, so with the alerts'.
  let gcMs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  }).observe({ entryTypes: ["gc"] });

  process.on("message", async (msg) => {
    if (msg.round) {
      const before = index.size;
      const gcBefore = gcMs;
      const cpu = process.cpuUsage();
      const t = performance.now();
      for (let i = 0; i < msg.round; i++) await deps.market.tick();
      const ms = performance.now() - t;
      const used = process.cpuUsage(cpu);
      await new Promise((resolve) => setTimeout(resolve, 20)); // the gc entries are delivered by the event loop
      process.send({
        ms,
        cpuMs: (used.user + used.system) / 1000,
        gcMs: gcMs - gcBefore,
        fired: before - index.size,
        watched: index.size,
        rss: process.memoryUsage().rss,
      });
    } else if (msg.finish) {
      const end = memory();
      const maxRss = process.resourceUsage().maxRSS * 1024;
      await closeDeps(deps);
      rmSync(dir, { recursive: true, force: true });
      process.send({ end, maxRss });
      process.disconnect();
    }
  });
}

async function parent() {
  const script = fileURLToPath(import.meta.url);
  const start = (alerts) =>
    new Promise((resolve, reject) => {
      const c = fork(script, ["--child", "--child-alerts", String(alerts), "--child-volatility", VOLATILITY], {
        execArgv: ["--expose-gc"],
      });
      c.once("message", (ready) => resolve({ c, ready }));
      c.once("exit", (code) => reject(new Error(`child (${alerts} alerts) exited with ${code}`)));
    });
  const ask = ({ c }, msg) =>
    new Promise((resolve) => {
      c.once("message", resolve);
      c.send(msg);
    });
  // One after the other: the build is timed alone.
  const plain = await start(0);
  const withAlerts = await start(ALERTS);
  await ask(plain, { round: WARMUP_TICKS });
  await ask(withAlerts, { round: WARMUP_TICKS });
  const rounds = { plain: [], alerts: [] };
  for (let r = 0; r < ROUNDS; r++) {
    // Alternating which side goes first, so neither always runs on the same share of the machine.
    const order = r % 2 === 0 ? ["plain", "alerts"] : ["alerts", "plain"];
    for (const side of order) rounds[side].push(await ask(side === "plain" ? plain : withAlerts, { round: TICKS }));
  }
  const endPlain = await ask(plain, { finish: true });
  const endAlerts = await ask(withAlerts, { finish: true });

  const tps = (xs) => median(xs.map((x) => TICKS / (x.ms / 1000)));
  const cpuUs = (xs) => median(xs.map((x) => (x.cpuMs * 1000) / TICKS));
  const roundRatios = rounds.alerts.map((a, i) => rounds.plain[i].ms / a.ms);
  const ratio = median(roundRatios);
  const cpuRatio = cpuUs(rounds.plain) / cpuUs(rounds.alerts);
  const w = withAlerts.ready;
  const p = plain.ready;
  const heapPerAlert = (w.loaded.heapUsed - w.empty.heapUsed) / ALERTS;
  const rssPerAlert = (w.loaded.rss - w.empty.rss) / ALERTS;
  const fired = rounds.alerts.reduce((s, x) => s + x.fired, 0);
  const result = {
    scenario: "price-alerts",
    at: new Date().toISOString(),
    command: `node bench/price-alerts.mjs --alerts ${ALERTS} --ticks ${TICKS} --rounds ${ROUNDS} --volatility ${VOLATILITY}`,
    alerts: ALERTS,
    instruments: w.instruments,
    ticksPerRound: TICKS,
    rounds: ROUNDS,
    build: w.build && {
      seconds: Number((w.build.ms / 1000).toFixed(2)),
      alertsPerSecond: Math.round(ALERTS / (w.build.ms / 1000)),
      cpuSeconds: Number((w.build.cpuMs / 1000).toFixed(2)),
      alertsPerCpuSecond: Math.round(ALERTS / (w.build.cpuMs / 1000)),
    },
    ticksPerSecond: { without: Math.round(tps(rounds.plain)), with: Math.round(tps(rounds.alerts)) },
    ratio: Number(ratio.toFixed(3)),
    // The fastest round of each side: the closest to the machine's speed when no one else used it.
    bestRoundRatio: Number(
      (Math.min(...rounds.plain.map((x) => x.ms)) / Math.min(...rounds.alerts.map((x) => x.ms))).toFixed(3),
    ),
    roundRatios: roundRatios.map((x) => Number(x.toFixed(3))),
    cpuUsPerTick: {
      without: Number(cpuUs(rounds.plain).toFixed(1)),
      with: Number(cpuUs(rounds.alerts).toFixed(1)),
      ratio: Number(cpuRatio.toFixed(3)),
    },
    gcUsPerTick: {
      without: Number(((median(rounds.plain.map((x) => x.gcMs)) * 1000) / TICKS).toFixed(1)),
      with: Number(((median(rounds.alerts.map((x) => x.gcMs)) * 1000) / TICKS).toFixed(1)),
    },
    alertsFired: fired,
    alertsStillWatched: rounds.alerts.at(-1).watched,
    memoryMb: {
      // After a full GC, once built (the alerts side) / at the same point (the side without).
      without: { rss: mb(p.loaded.rss), heapUsed: mb(p.loaded.heapUsed) },
      with: { rss: mb(w.loaded.rss), heapUsed: mb(w.loaded.heapUsed) },
      afterRounds: {
        without: { rss: mb(endPlain.end.rss), heapUsed: mb(endPlain.end.heapUsed), peakRss: mb(endPlain.maxRss) },
        with: { rss: mb(endAlerts.end.rss), heapUsed: mb(endAlerts.end.heapUsed), peakRss: mb(endAlerts.maxRss) },
      },
    },
    bytesPerAlert: { heapUsed: Math.round(heapPerAlert), rss: Math.round(rssPerAlert) },
    targets: {
      ticksPerSecond: ratio >= 0.8 ? "MET (>= 80% of without)" : "MISSED (< 80% of without)",
      bytesPerAlert:
        ALERTS === 0 ? "n/a (no alerts)" : heapPerAlert <= 300 ? "MET (<= ~300 B heap)" : "MISSED (> ~300 B heap)",
    },
  };
  console.log(JSON.stringify(result, null, 2));
  const out = join(fileURLToPath(new URL(".", import.meta.url)), "results");
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "price-alerts.json"), `${JSON.stringify(result, null, 2)}\n`);
}
