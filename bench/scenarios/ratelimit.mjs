// The limiter's cost: GET /api/v1/me (key-pair auth, one small read) with the memory-store limiter
// on, against the same server and route with limits off, in the same run. Goal: at most 5% slower.
export default {
  name: "ratelimit",
  description: "GET /api/v1/me with rate limits on (memory store) vs the same server with RATE_LIMITS_ENABLED=false",
  targets: { minRatio: 0.95 },
  // On, with the default pool raised so that the run is never refused (a 429 would void it).
  env: { RATE_LIMIT_DEFAULT: "1000000000/60s" },
  baselineEnv: { RATE_LIMITS_ENABLED: "false" },
  async prepare(app) {
    return {
      method: "GET",
      path: "/api/v1/me",
      headers: { "x-api-key": app.demo.apiKey, "x-user-key": app.demo.userKey },
    };
  },
};
