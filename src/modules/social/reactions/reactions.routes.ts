import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { NoContent } from "../../../http/schemas.js";
import { type Deps, withActor } from "../../context.js";
import { READ_SCOPES, WRITE_SCOPES } from "../shared/access.js";
import { E403, E404 } from "../shared/errors.schemas.js";
import { EmotionsQuery, EmotionsResponse, EntityParams, PostParams } from "../shared/social.schemas.js";
import { listReactions } from "./list-reactions.js";
import { markPost } from "./mark-post.js";
import type { Mark } from "./reactions.rules.js";
import { unmarkPost } from "./unmark-post.js";

const TAGS = ["Feeds"];

export function registerReactionRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;

  markRoute(app, deps, "POST", "/api/v1/posts/:postId/likes", {
    operationId: "likePost",
    mark: "like",
    summary: "Like a post",
  });
  markRoute(app, deps, "DELETE", "/api/v1/posts/:postId/likes", {
    operationId: "unlikePost",
    mark: "like",
    summary: "Undo: like a post",
  });
  markRoute(app, deps, "POST", "/api/v1/posts/:postId/saves", {
    operationId: "saveAPost",
    mark: "save",
    summary: "Save a post to the caller's saved feed",
  });
  markRoute(app, deps, "DELETE", "/api/v1/posts/:postId/saves", {
    operationId: "unsaveAPost",
    mark: "save",
    summary: "Undo: save a post to the caller's saved feed",
  });
  markRoute(app, deps, "POST", "/api/v1/posts/:postId/pins", {
    operationId: "pinPostUserSProfile",
    mark: "pin",
    summary: "Pin one of the caller's own posts to their profile",
  });
  markRoute(app, deps, "DELETE", "/api/v1/posts/:postId/pins", {
    operationId: "unpinPostUserSProfile",
    mark: "pin",
    summary: "Undo: pin one of the caller's own posts to their profile",
  });
  markRoute(app, deps, "POST", "/api/v1/posts/:postId/follows", {
    operationId: "followAPost",
    mark: "follow",
    summary: "Follow a post",
  });
  markRoute(app, deps, "DELETE", "/api/v1/posts/:postId/follows", {
    operationId: "unfollowAPost",
    mark: "follow",
    summary: "Undo: follow a post",
  });

  app.route({
    method: "GET",
    url: "/api/v1/reactions/:entityId/emotions",
    ...api(
      { scopes: READ_SCOPES },
      {
        operationId: "listReactions",
        tags: TAGS,
        summary: "Reactions (likes) of a post or comment, newest first",
        description: "The target of `emotionsData.like.paging.next`. `take` 1..50 (default 10), `offset` >= 0.",
        params: EntityParams,
        querystring: EmotionsQuery,
        response: { 200: EmotionsResponse, 404: E404("No such post or comment") },
      },
      prefix,
    ),
    handler: async (request) => listReactions(withActor(deps, request.actor), request.params.entityId, request.query),
  });
}

/** A mark of a post (like, save, pin, follow) or its undoing: idempotent, no content. */
function markRoute(
  app: App,
  deps: Deps,
  method: "POST" | "DELETE",
  url: string,
  op: { operationId: string; mark: Mark; summary: string },
): void {
  app.route({
    method,
    url,
    ...api(
      { scopes: WRITE_SCOPES },
      {
        operationId: op.operationId,
        tags: TAGS,
        summary: op.summary,
        description: "Idempotent. 404 for an unknown or deleted post.",
        params: PostParams,
        response: { 204: NoContent, 403: E403, 404: E404("No such post, or deleted") },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request, reply) => {
      const ctx = withActor(deps, request.actor);
      await (method === "POST" ? markPost : unmarkPost)(ctx, request.params.postId, op.mark);
      return reply.status(204).send(null);
    },
  });
}
