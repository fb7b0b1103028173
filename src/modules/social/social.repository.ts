import type { Executor } from "../../infra/db/executor.js";
import { commentsRepository } from "./comments.repository.js";
import { graphRepository } from "./graph.repository.js";
import { pollsRepository } from "./polls.repository.js";
import { postsRepository } from "./posts.repository.js";
import { reactionsRepository } from "./reactions.repository.js";

/** The social module's data access: one object over the per-concern repositories. */
export const socialRepository = (db: Executor) => ({
  ...postsRepository(db),
  ...pollsRepository(db),
  ...commentsRepository(db),
  ...reactionsRepository(db),
  ...graphRepository(db),
});

export type SocialRepository = ReturnType<typeof socialRepository>;
