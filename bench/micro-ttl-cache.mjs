// The authenticators' cache (src/core/ttl-cache.ts, lru-cache since decision 0095) against the
// hand-written cache it replaced, in one process, in alternating rounds; prints the median time per
// operation and the ratio to the hand-written cache (below 1 = faster).
// Usage: npm run build && node bench/micro-ttl-cache.mjs [operations] [rounds]
import { systemClock } from "../dist/core/clock.js";
import { TtlCache } from "../dist/core/ttl-cache.js";

/** The hand-written cache as it was before decision 0095 (src/core/ttl-cache.ts at b165277). */
class HandWritten {
  entries = new Map();
  constructor(ttlMs, maxEntries, clock) {
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
    this.clock = clock;
  }
  get(key) {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until <= this.clock.now().getTime()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }
  set(key, value) {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      this.entries.delete(this.entries.keys().next().value);
    }
    this.entries.set(key, { value, until: this.clock.now().getTime() + this.ttlMs });
  }
  evictWhere(match) {
    for (const [key, entry] of this.entries) if (match(entry.value)) this.entries.delete(key);
  }
}

// As the authenticators use it: AUTH_CACHE_TTL_MS (1 s by default), 10,000 entries.
const TTL = 1000;
const MAX = 10_000;
/** A clock that is not the system clock object: the path tests take (read at every check). */
const injected = { now: () => new Date() };
const caches = {
  "hand-written": () => new HandWritten(TTL, MAX, systemClock),
  "lru-cache, system clock": () => new TtlCache(TTL, MAX, systemClock),
  "lru-cache, injected clock": () => new TtlCache(TTL, MAX, injected),
};

const keys = Array.from({ length: 20_000 }, (_, i) => `credential-${i}-${"x".repeat(30)}`);
const value = (i) => ({ actor: { userId: `u${i}` }, sid: `g${i % 50}` });

/** Each returns [milliseconds, operations]. */
const workloads = {
  "get, hit (100 busy callers)": (c, n) => {
    for (let i = 0; i < 100; i++) c.set(keys[i], value(i));
    let hits = 0;
    const t = performance.now();
    for (let i = 0; i < n; i++) if (c.get(keys[i % 100])) hits++;
    if (hits !== n) throw new Error("expected every get to hit");
    return [performance.now() - t, n];
  },
  "get, else set (5,000 callers)": (c, n) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) {
      const k = keys[(i * 7919) % 5000];
      if (!c.get(k)) c.set(k, value(i));
    }
    return [performance.now() - t, n];
  },
  "set when full (20,000 into 10,000)": (c, n) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) c.set(keys[i % 20_000], value(i));
    return [performance.now() - t, n];
  },
  "evictWhere over 10,000 (a revocation)": (c, n) => {
    const calls = Math.max(1, Math.floor(n / 20_000));
    let ms = 0;
    for (let r = 0; r < calls; r++) {
      for (let i = 0; i < MAX; i++) c.set(keys[i], value(i));
      const t = performance.now();
      c.evictWhere((v) => v.sid === "g7");
      ms += performance.now() - t;
    }
    return [ms, calls];
  },
};

const N = Number(process.argv[2] ?? 400_000);
const ROUNDS = Number(process.argv[3] ?? 5);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const names = Object.keys(caches);
console.log(`node ${process.version}; ${N} operations per round, ${ROUNDS} rounds, alternating order; median ns/op`);
for (const [workload, run] of Object.entries(workloads)) {
  const nsPerOp = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...names].reverse() : names;
    for (const name of order) {
      const [ms, ops] = run(caches[name](), N);
      nsPerOp[name].push((ms * 1e6) / ops);
    }
  }
  const base = median(nsPerOp["hand-written"]);
  const cells = names.map((name) => {
    const m = median(nsPerOp[name]);
    return `${name} ${m.toFixed(0)}${name === "hand-written" ? "" : ` (${(m / base).toFixed(2)}x)`}`;
  });
  console.log(`${workload.padEnd(40)} ${cells.join("  |  ")}`);
}
