// GET /health: no auth, no database, no limiter. The framework's own ceiling on this machine, to
// read the other scenarios' ratios against.
export default {
  name: "health",
  description: "GET /health (no auth, no database): the HTTP framework's ceiling",
  async prepare() {
    return { method: "GET", path: "/health", headers: {} };
  },
};
