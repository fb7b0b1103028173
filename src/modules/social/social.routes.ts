import type { App } from "../../http/app-type.js";
import type { Deps } from "../context.js";
import { registerCommentRoutes } from "./comments/comments.routes.js";
import { registerFeedRoutes } from "./feeds/feeds.routes.js";
import { registerGraphRoutes } from "./graph/graph.routes.js";
import { registerPollRoutes } from "./polls/polls.routes.js";
import { registerPostRoutes } from "./posts/posts.routes.js";
import { registerReactionRoutes } from "./reactions/reactions.routes.js";
import { marksPatcher } from "./shared/caller-marks.js";
import { SocialReadCache } from "./shared/read-cache.js";
import { SharedParts } from "./shared/shared-documents.js";
import { registerTradePostRoutes } from "./trade-posts/trade-posts.routes.js";

/** Posts, polls, comments, reactions, the social graph and every feed: one routes file per sub-area. */
export function registerSocialRoutes(app: App, deps: Deps): void {
  // One post and feed pages are answered from this instance's cache while nothing they show changed.
  // On SQLite its documents outlive READ_CACHE_MAX_AGE_MS while no other connection writes (0212).
  const cache = SocialReadCache.listening(deps.bus, deps.config.readCache, deps.metrics, () =>
    deps.db.externalVersion(),
  );
  // Posts' caller-independent documents and feeds' listings, shared by every caller (0169).
  const parts = new SharedParts(cache);
  // A like is added to the liker's kept marks rather than their being loaded again (0198).
  cache.patchWith(marksPatcher);
  registerPostRoutes(app, deps, parts);
  registerPollRoutes(app, deps);
  registerFeedRoutes(app, deps, parts);
  registerReactionRoutes(app, deps);
  registerCommentRoutes(app, deps);
  registerGraphRoutes(app, deps);
  registerTradePostRoutes(app, deps);
}
