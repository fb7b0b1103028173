// GET /api/v1/notifications/messages with a valid key pair: auth, a SQLite read, serialization.
import { randomUUID } from "node:crypto";

export default {
  name: "notifications",
  description: "GET /api/v1/notifications/messages with a valid key pair (demo user, seeded notifications)",
  targets: { minRatio: 0.7, maxRssMb: 200 },
  // Limits stay on (their cost is part of the figure) but raised far above what a run can spend.
  env: { RATE_LIMIT_DEFAULT: "1000000000/60s", RATE_LIMIT_NOTIFICATIONS: "1000000000/1s" },
  async prepare(app) {
    return {
      method: "GET",
      path: "/api/v1/notifications/messages",
      headers: { "x-api-key": app.demo.apiKey, "x-user-key": app.demo.userKey, "x-request-id": randomUUID() },
    };
  },
};
