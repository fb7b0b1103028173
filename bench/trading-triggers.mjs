// Trigger evaluation with many open positions: price updates per second through the trigger index
// (stop-loss, take-profit and trailing stops of 1M positions by default) and the process's memory.
// Usage: npm run build && node --expose-gc bench/trading-triggers.mjs [positions] [ticks]
// Targets (issue 6): at least 200,000 ticks per second with 1M open positions, under 500 MB.
import { mulberry32 } from "../dist/core/random.js";
import { TriggerIndex } from "../dist/modules/trading/trigger-index.js";

const POSITIONS = Number(process.argv[2] ?? 1_000_000);
const TICKS = Number(process.argv[3] ?? 2_000_000);
const INSTRUMENTS = 50;

// A deterministic generator, so runs are comparable.
const random = mulberry32(12345);

const mids = Array.from({ length: INSTRUMENTS }, () => 50 + random() * 450);
const spread = (mid) => ({ bid: Math.round(mid * 0.9998 * 100) / 100, ask: Math.round(mid * 1.0002 * 100) / 100 });

const rssMb = () => process.memoryUsage().rss / 1024 / 1024;
globalThis.gc?.();
const before = rssMb();
const index = new TriggerIndex();
let t = performance.now();
for (let id = 1; id <= POSITIONS; id++) {
  const instrumentId = 1 + (id % INSTRUMENTS);
  const mid = mids[instrumentId - 1];
  const { bid, ask } = spread(mid);
  const isBuy = random() < 0.6;
  const close = isBuy ? bid : ask;
  const dir = isBuy ? 1 : -1;
  const kind = random();
  // Levels 2% to 30% away: a realistic book where a tick crosses few of them.
  const sl = kind < 0.85 ? Math.round((close - dir * close * (0.02 + random() * 0.28)) * 100) / 100 : 0;
  const tp = kind > 0.3 ? Math.round(((isBuy ? ask : bid) + dir * close * (0.02 + random() * 0.5)) * 100) / 100 : 0;
  index.add({
    positionId: id,
    instrumentId,
    isBuy,
    stopLossRate: sl,
    takeProfitRate: tp,
    isTslEnabled: sl > 0 && kind < 0.25,
    bestRate: close,
  });
}
const loadMs = performance.now() - t;
globalThis.gc?.();
const loaded = rssMb();

let fired = 0;
t = performance.now();
for (let i = 0; i < TICKS; i++) {
  const k = i % INSTRUMENTS;
  // A random walk with 0.05% steps per tick.
  mids[k] *= 1 + (random() - 0.5) * 0.001;
  const { bid, ask } = spread(mids[k]);
  fired += index.update(k + 1, bid, ask).length;
}
const tickMs = performance.now() - t;
const ticksPerSecond = TICKS / (tickMs / 1000);
const peak = Math.max(loaded, rssMb());
const result = {
  scenario: "trading-triggers",
  at: new Date().toISOString(),
  positions: POSITIONS,
  ticks: TICKS,
  loadSeconds: Number((loadMs / 1000).toFixed(2)),
  ticksPerSecond: Math.round(ticksPerSecond),
  positionsTriggered: fired,
  stillWatched: index.size,
  rssMbBefore: Math.round(before),
  rssMbLoaded: Math.round(loaded),
  rssMbPeak: Math.round(peak),
  targets: {
    ticksPerSecond: ticksPerSecond >= 200_000 ? "MET (>= 200000)" : "MISSED (< 200000)",
    memory: peak < 500 ? "MET (< 500 MB)" : "MISSED (>= 500 MB)",
  },
};
console.log(JSON.stringify(result, null, 2));
