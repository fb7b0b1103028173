// The same request as `social-feed` with the read cache off (READ_CACHE_MB=0): every answer is
// assembled from the database, the cost of a cache miss (docs/decisions/0080). No target.
import base from "./social-feed.mjs";

export default {
  ...base,
  name: "social-feed-uncached",
  description: `${base.description}; read cache off (every answer assembled)`,
  targets: {},
  env: { ...base.env, READ_CACHE_MB: "0" },
};
