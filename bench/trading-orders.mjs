// Demo orders per second over HTTP (POST .../market-open-orders/by-amount, each a committed
// transaction: idempotency key, guarded debit, order, position), and in the same run the same
// number of plain single-row insert transactions on a SQLite file with the server's settings.
// Usage: npm run build && node bench/trading-orders.mjs [--duration S] [--connections C]
// (`npm run bench -- trading-orders` runs the same measurement in rounds, as a scenario.)
// Target (issue 6): at least 3,000 orders per second over HTTP on SQLite; the ratio shows the cost
// of the order's work against the storage's own commit rate.
import { randomUUID } from "node:crypto";
import autocannon from "autocannon";
import { plainInserts, rssMb, startApp } from "./lib.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const duration = arg("duration", 10);
const connections = arg("connections", 20);

const app = await startApp({
  RATE_LIMITS_ENABLED: "false",
  DEMO_BALANCE: "100000000000",
  MARKET_TICK_MS: "1000",
});
let orders;
let peak = 0;
try {
  const headers = {
    "x-api-key": app.demo.apiKey,
    "x-user-key": app.demo.userKey,
    "content-type": "application/json",
  };
  const body = JSON.stringify({ InstrumentID: 1001, IsBuy: true, Leverage: 1, Amount: 10 });
  const path = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
  const first = await fetch(app.baseUrl + path, {
    method: "POST",
    headers: { ...headers, "x-request-id": randomUUID() },
    body,
  });
  if (first.status !== 200) throw new Error(`order answered ${first.status}: ${await first.text()}`);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(app.pid))), 250);
  // Every order needs its own x-request-id: the same id would be an idempotent replay.
  const result = await autocannon({
    url: app.baseUrl,
    connections,
    duration,
    requests: [
      {
        method: "POST",
        path,
        body,
        setupRequest: (req) => ({ ...req, headers: { ...headers, "x-request-id": randomUUID() } }),
      },
    ],
  });
  clearInterval(sampler);
  orders = {
    total: result["2xx"],
    perSecond: result["2xx"] / duration,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
} finally {
  await app.stop();
}

// The same number of plain inserts, one transaction each, with the server's SQLite settings
// (the same function as the `trading-orders` scenario's `plain-inserts` baseline).
const insertsPerSecond = (await plainInserts(orders.total)).rps;

const report = {
  scenario: "trading-orders",
  at: new Date().toISOString(),
  options: { duration, connections },
  orders: { ...orders, perSecond: Math.round(orders.perSecond) },
  plainInserts: { total: orders.total, perSecond: Math.round(insertsPerSecond) },
  ratio: Number((orders.perSecond / insertsPerSecond).toFixed(4)),
  serverPeakRssMb: Math.round(peak),
  target: orders.perSecond >= 3000 ? "MET (>= 3000 orders/s)" : "MISSED (< 3000 orders/s)",
};
console.log(JSON.stringify(report, null, 2));
