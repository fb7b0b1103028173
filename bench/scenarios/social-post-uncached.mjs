// The same request as `social-post` with the read cache off (READ_CACHE_MB=0): every answer is
// assembled from the database, the cost of a cache miss (docs/decisions/0080). No target.
import base from "./social-post.mjs";

export default {
  ...base,
  name: "social-post-uncached",
  description: `${base.description}; read cache off (every answer assembled)`,
  targets: {},
  env: { ...base.env, READ_CACHE_MB: "0" },
};
