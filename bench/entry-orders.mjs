// Entry (market-if-touched) orders on the tick path: price updates per second and memory with
// 100,000 resting entry orders over 50 instruments, as a ratio against the same engine with no
// entry orders, measured in the same run (rounds alternate, the median of each is reported).
// Ticks per second are counted against the process's CPU time (the verdict) and against wall time:
// on a shared machine wall time mostly measures who else had the cores. Memory: the heap each
// engine holds (after a full GC, in this process) and the resident size of a fresh process that
// only builds that engine (`--memory N`, run once per side).
// "The engine" is what every tick does in process: a random-walk price step with its spread, the
// stop-loss / take-profit index of the open positions (../src/modules/trading/trigger-index.ts)
// and the entry index (../src/modules/trading/entry-orders/entry-index.ts). An order reached
// leaves the index (it would execute) and a new one is placed in its stead, so the book stays full.
// Usage: npm run build && node --expose-gc bench/entry-orders.mjs [entryOrders] [ticks] [rounds]
// Target (issue 14): with entry orders, at least 80% of the ticks per second without them.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "../dist/core/random.js";
import { EntryIndex } from "../dist/modules/trading/entry-orders/entry-index.js";
import { TriggerIndex } from "../dist/modules/trading/trigger-index.js";

const MEMORY_ONLY = process.argv[2] === "--memory";
if (MEMORY_ONLY) process.argv.splice(2, 1);
const ENTRY_ORDERS = Number(process.argv[2] ?? 100_000);
const TICKS = Number(process.argv[3] ?? 1_000_000);
const ROUNDS = Number(process.argv[4] ?? 3);
const POSITIONS = 100_000;
const INSTRUMENTS = 50;

const generator = mulberry32;
const spread = (mid) => ({ bid: Math.round(mid * 0.9998 * 100) / 100, ask: Math.round(mid * 1.0002 * 100) / 100 });
const heapMb = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

/** One engine: positions' triggers always, `entries` resting entry orders; `ticks` price updates. */
function run(entries, ticks = TICKS) {
  const random = generator(12345);
  const mids = Array.from({ length: INSTRUMENTS }, () => 50 + random() * 450);
  const heapBefore = heapMb();
  const triggers = new TriggerIndex();
  for (let id = 1; id <= POSITIONS; id++) {
    const instrumentId = 1 + (id % INSTRUMENTS);
    const { bid, ask } = spread(mids[instrumentId - 1]);
    const isBuy = random() < 0.6;
    const close = isBuy ? bid : ask;
    const dir = isBuy ? 1 : -1;
    const sl = Math.round((close - dir * close * (0.02 + random() * 0.28)) * 100) / 100;
    triggers.add({ positionId: id, instrumentId, isBuy, stopLossRate: sl, takeProfitRate: 0, isTslEnabled: false });
  }
  const book = new EntryIndex();
  // Orders draw from their own generator: both runs walk the same prices and fire the same stops.
  const orderRandom = generator(777);
  let nextOrderId = 1;
  // A new order 1% to 20% better than the current price (below the ask for a buy, above the bid for a sell).
  const place = (instrumentId) => {
    const { bid, ask } = spread(mids[instrumentId - 1]);
    const isBuy = orderRandom() < 0.5;
    const away = 0.01 + orderRandom() * 0.19;
    const triggerRate = Math.round((isBuy ? ask * (1 - away) : bid * (1 + away)) * 100) / 100;
    book.add({ orderId: nextOrderId++, instrumentId, isBuy, triggerRate });
  };
  for (let i = 0; i < entries; i++) place(1 + (i % INSTRUMENTS));
  const heapLoaded = heapMb();
  if (ticks === 0) return { triggers, book, heapMb: heapLoaded - heapBefore };

  let reached = 0;
  const t = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < ticks; i++) {
    const k = i % INSTRUMENTS;
    mids[k] *= 1 + (random() - 0.5) * 0.001;
    const { bid, ask } = spread(mids[k]);
    triggers.update(k + 1, bid, ask);
    if (book.size > 0) {
      const hits = book.update(k + 1, bid, ask);
      reached += hits.length;
      for (const h of hits) place(h.instrumentId);
    }
  }
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  return {
    ticksPerSecond: ticks / (cpuMs / 1000),
    wallTicksPerSecond: ticks / (ms / 1000),
    heapMb: heapLoaded - heapBefore,
    reached,
    resting: book.size,
  };
}

if (MEMORY_ONLY) {
  // A fresh process per side: build the engine, collect, report what it holds.
  const engine = run(ENTRY_ORDERS, 0);
  globalThis.gc?.();
  const m = process.memoryUsage();
  console.log(JSON.stringify({ rssMb: m.rss / 1048576, heapUsedMb: m.heapUsed / 1048576, held: engine.book.size }));
  process.exit(0);
}
/** The memory of a fresh process holding the engine with `entries` entry orders. */
const memoryOf = (entries) =>
  JSON.parse(
    execFileSync(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--memory", String(entries)], {
      encoding: "utf8",
    }),
  );

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const without = [];
const withEntries = [];
for (let r = 0; r < ROUNDS; r++) {
  without.push(run(0));
  withEntries.push(run(ENTRY_ORDERS));
}
const base = median(without.map((x) => x.ticksPerSecond));
const loaded = median(withEntries.map((x) => x.ticksPerSecond));
const ratio = loaded / base;
const wallBase = median(without.map((x) => x.wallTicksPerSecond));
const wallLoaded = median(withEntries.map((x) => x.wallTicksPerSecond));
const memoryWithout = memoryOf(0);
const memoryWith = memoryOf(ENTRY_ORDERS);
const heapWithout = median(without.map((x) => x.heapMb));
const heapWith = median(withEntries.map((x) => x.heapMb));
const mb = (x) => Number(x.toFixed(1));
const result = {
  scenario: "entry-orders",
  at: new Date().toISOString(),
  instruments: INSTRUMENTS,
  openPositionsWatched: POSITIONS,
  entryOrders: ENTRY_ORDERS,
  ticksPerRound: TICKS,
  rounds: ROUNDS,
  baseline: {
    ticksPerCpuSecond: Math.round(base),
    ticksPerWallSecond: Math.round(wallBase),
    heapMb: mb(heapWithout),
    freshProcess: { rssMb: mb(memoryWithout.rssMb), heapUsedMb: mb(memoryWithout.heapUsedMb) },
  },
  withEntryOrders: {
    ticksPerCpuSecond: Math.round(loaded),
    ticksPerWallSecond: Math.round(wallLoaded),
    heapMb: mb(heapWith),
    bytesPerEntryOrder: Math.round(((heapWith - heapWithout) * 1048576) / ENTRY_ORDERS),
    freshProcess: { rssMb: mb(memoryWith.rssMb), heapUsedMb: mb(memoryWith.heapUsedMb) },
    entryOrdersReachedPerRound: withEntries[0].reached,
    stillResting: withEntries[0].resting,
  },
  ratio: Number(ratio.toFixed(3)),
  wallRatio: Number((wallLoaded / wallBase).toFixed(3)),
  perRoundRatios: withEntries.map((x, i) => Number((x.ticksPerSecond / without[i].ticksPerSecond).toFixed(2))),
  target: ratio >= 0.8 ? "MET (CPU ticks/s >= 0.80 of the baseline)" : "MISSED (CPU ticks/s < 0.80 of the baseline)",
};
console.log(JSON.stringify(result, null, 2));
