// The metrics' cost on the hottest route: the cached GET /api/v1/posts/{postId} with METRICS=on
// (every answer counted and timed per route and status) against the same server with METRICS=off,
// in the same run (docs/decisions/0106). Goal: at most 5% slower.
import { randomUUID } from "node:crypto";
import { SOCIAL_BENCH_ENV, taggedPosts } from "../social/prepare.mjs";

const TOKEN = "bench-metrics-token-0123456789abcdef";

export default {
  name: "metrics-post",
  description: "cached GET /api/v1/posts/{postId} with METRICS=on vs the same server with METRICS=off",
  targets: { minRatio: 0.95 },
  env: { ...SOCIAL_BENCH_ENV, METRICS: "on", METRICS_TOKEN: TOKEN },
  baselineEnv: { ...SOCIAL_BENCH_ENV, METRICS: "off" },
  async prepare(app) {
    const { c, ids } = await taggedPosts(app, 1001, 1);
    return { method: "GET", path: `/api/v1/posts/${ids[0]}`, headers: { ...c.headers, "x-request-id": randomUUID() } };
  },
};
