// POST .../market-open-orders/by-amount: demo orders, each its own committed transaction
// (idempotency key, guarded debit, order, position) plus the RecentlyInvested upkeep, over HTTP.
import { randomUUID } from "node:crypto";

export default {
  name: "trading-orders",
  description:
    "POST /api/v1/trading/execution/demo/market-open-orders/by-amount (key pair, a fresh x-request-id per order), " +
    "against the same number of plain SQLite insert transactions",
  // Issue 6: at least 3,000 orders per second over HTTP on SQLite.
  targets: { minRps: 3000 },
  baseline: "plain-inserts",
  // Limits off (a quota would cap the figure), a balance no run can spend, a slow tick so the
  // trigger loop does not compete.
  env: { RATE_LIMITS_ENABLED: "false", DEMO_BALANCE: "100000000000", MARKET_TICK_MS: "1000" },
  async prepare(app) {
    const headers = {
      "x-api-key": app.demo.apiKey,
      "x-user-key": app.demo.userKey,
      "content-type": "application/json",
    };
    return {
      method: "POST",
      path: "/api/v1/trading/execution/demo/market-open-orders/by-amount",
      headers,
      body: JSON.stringify({ InstrumentID: 1001, IsBuy: true, Leverage: 1, Amount: 10 }),
      // The same x-request-id twice is an idempotent replay, not an order: a new one each time.
      setupRequest: (req) => ({ ...req, headers: { ...headers, "x-request-id": randomUUID() } }),
    };
  },
};
