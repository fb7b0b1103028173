import type { Executor } from "../../../infra/db/executor.js";
import { commentsRepository } from "../comments/comments.repository.js";
import { feedsRepository } from "../feeds/feeds.repository.js";
import { graphRepository } from "../graph/graph.repository.js";
import { pollsRepository } from "../polls/polls.repository.js";
import { postsRepository } from "../posts/posts.repository.js";
import { reactionsRepository } from "../reactions/reactions.repository.js";

const CONCERNS = [
  postsRepository,
  feedsRepository,
  pollsRepository,
  commentsRepository,
  reactionsRepository,
  graphRepository,
] as const;

export type SocialRepository = ReturnType<typeof postsRepository> &
  ReturnType<typeof feedsRepository> &
  ReturnType<typeof pollsRepository> &
  ReturnType<typeof commentsRepository> &
  ReturnType<typeof reactionsRepository> &
  ReturnType<typeof graphRepository>;

/**
 * Every method's concern, read once from repositories made over no executor (making one only
 * makes its closures; none touches the executor before it is called).
 */
const concernOf = new Map<string, number>();
for (const [i, make] of CONCERNS.entries()) {
  for (const name of Object.keys(make(undefined as unknown as Executor))) concernOf.set(name, i);
}

interface Lazy {
  db: Executor;
  made: object[];
}

/**
 * Methods looked up through one shared prototype: an executor's object makes a concern's
 * repository on the first call of one of its methods. A write's transaction uses one or two of
 * the six; making all six cost ~20 µs per transaction (decision 0199).
 */
const proto: object = {};
for (const [name, i] of concernOf) {
  Object.defineProperty(proto, name, {
    get(this: Lazy) {
      let repo = this.made[i];
      if (repo === undefined) {
        repo = CONCERNS[i]!(this.db);
        this.made[i] = repo;
      }
      return (repo as Record<string, unknown>)[name];
    },
  });
}

/** One per executor (the store, a transaction): a read asks for it several times. */
const made = new WeakMap<Executor, SocialRepository>();

/** The social module's data access: one object over the per-concern repositories. */
export function socialRepository(db: Executor): SocialRepository {
  let repo = made.get(db);
  if (!repo) {
    const lazy: Lazy = Object.assign(Object.create(proto) as Lazy, { db, made: [] });
    repo = lazy as unknown as SocialRepository;
    made.set(db, repo);
  }
  return repo;
}
