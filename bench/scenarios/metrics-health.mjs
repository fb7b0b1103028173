// The metrics' cost where it weighs most: GET /health (no auth, no database), so the per-request
// recorder is the largest share of the work. METRICS=on against METRICS=off in the same run
// (docs/decisions/0106).
const TOKEN = "bench-metrics-token-0123456789abcdef";

export default {
  name: "metrics-health",
  description: "GET /health with METRICS=on vs the same server with METRICS=off",
  targets: { minRatio: 0.9 },
  env: { METRICS: "on", METRICS_TOKEN: TOKEN },
  baselineEnv: { METRICS: "off" },
  async prepare() {
    return { method: "GET", path: "/health", headers: {} };
  },
};
