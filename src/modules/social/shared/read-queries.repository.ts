import { commentQueries } from "../comments/comment-queries.repository.js";
import { postQueries } from "../posts/post-queries.repository.js";

export { sourceKey } from "../posts/post-queries.repository.js";

/**
 * The read queries of the discussion path, compiled once per shape (infra/db/prepared.ts): their
 * values are bound, never computed on, inside the builders.
 */
export const Q = { ...postQueries, ...commentQueries };
