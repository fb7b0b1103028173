// GET /api/v1/feeds/instrument/{marketId}: a full 20-discussion page (seeded world plus 20 fresh posts).
import { randomUUID } from "node:crypto";
import { SOCIAL_BENCH_ENV, taggedPosts } from "../social/prepare.mjs";

export default {
  name: "social-feed",
  description:
    "GET /api/v1/feeds/instrument/1001?take=20 (20 discussions with tags, likes, comments), key pair, limits on",
  targets: { minRatio: 0.5, maxRssMb: 250 },
  env: SOCIAL_BENCH_ENV,
  async prepare(app) {
    const { c } = await taggedPosts(app, 1001, 20);
    return {
      method: "GET",
      path: "/api/v1/feeds/instrument/1001?take=20",
      headers: { ...c.headers, "x-request-id": randomUUID() },
    };
  },
};
