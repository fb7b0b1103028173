// GET /api/v1/trading/info/demo/portfolio: auth, the demo account and its open positions, serialization.
import { randomUUID } from "node:crypto";

const POSITIONS = 10;

export default {
  name: "trading-portfolio",
  description: `GET /api/v1/trading/info/demo/portfolio (demo user with ${POSITIONS} open positions), key pair, limits on`,
  targets: { maxRssMb: 250 },
  // Limits stay on (their cost is part of the figure) but raised far above what a run can spend.
  env: { RATE_LIMIT_DEFAULT: "1000000000/60s", RATE_LIMIT_WRITES: "1000000000/60s" },
  async prepare(app) {
    const headers = { "x-api-key": app.demo.apiKey, "x-user-key": app.demo.userKey };
    for (let i = 0; i < POSITIONS; i++) {
      const res = await fetch(`${app.baseUrl}/api/v1/trading/execution/demo/market-open-orders/by-amount`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "x-request-id": randomUUID() },
        body: JSON.stringify({ InstrumentID: 1001 + (i % 5), IsBuy: i % 2 === 0, Leverage: 1, Amount: 100 }),
      });
      if (res.status >= 300) throw new Error(`open position: ${res.status} ${await res.text()}`);
    }
    return {
      method: "GET",
      path: "/api/v1/trading/info/demo/portfolio",
      headers: { ...headers, "x-request-id": randomUUID() },
    };
  },
};
