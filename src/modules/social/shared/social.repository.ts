import type { Executor } from "../../../infra/db/executor.js";
import { commentsRepository } from "../comments/comments.repository.js";
import { feedsRepository } from "../feeds/feeds.repository.js";
import { graphRepository } from "../graph/graph.repository.js";
import { pollsRepository } from "../polls/polls.repository.js";
import { postsRepository } from "../posts/posts.repository.js";
import { reactionsRepository } from "../reactions/reactions.repository.js";

const make = (db: Executor) => ({
  ...postsRepository(db),
  ...feedsRepository(db),
  ...pollsRepository(db),
  ...commentsRepository(db),
  ...reactionsRepository(db),
  ...graphRepository(db),
});

export type SocialRepository = ReturnType<typeof make>;

/** One per executor (the store, a transaction): a read asks for it several times. */
const made = new WeakMap<Executor, SocialRepository>();

/** The social module's data access: one object over the per-concern repositories. */
export function socialRepository(db: Executor): SocialRepository {
  let repo = made.get(db);
  if (!repo) {
    repo = make(db);
    made.set(db, repo);
  }
  return repo;
}
