// GET /api/v1/posts/{postId}: one Discussion with its comments preview, reactions and requester context.
import { randomUUID } from "node:crypto";
import { SOCIAL_BENCH_ENV, taggedPosts } from "../social/prepare.mjs";

export default {
  name: "social-post",
  description: "GET /api/v1/posts/{postId} (a tagged post with a comment and a like), key pair, limits on",
  targets: { minRatio: 0.6, maxRssMb: 250 },
  env: SOCIAL_BENCH_ENV,
  async prepare(app) {
    const { c, ids } = await taggedPosts(app, 1001, 1);
    return { method: "GET", path: `/api/v1/posts/${ids[0]}`, headers: { ...c.headers, "x-request-id": randomUUID() } };
  },
};
