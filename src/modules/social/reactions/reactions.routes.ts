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

const MARKS: { path: string; mark: Mark; name: string; notes: string }[] = [
  { path: "likes", mark: "like", name: "Post", notes: "Like a post" },
  { path: "saves", mark: "save", name: "APost", notes: "Save a post to the caller's saved feed" },
  { path: "pins", mark: "pin", name: "PostUserSProfile", notes: "Pin one of the caller's own posts to their profile" },
  { path: "follows", mark: "follow", name: "APost", notes: "Follow a post" },
];

export function registerReactionRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  const write = { scopes: WRITE_SCOPES };

  for (const m of MARKS) {
    for (const method of ["POST", "DELETE"] as const) {
      const verb = method === "POST" ? m.mark : `un${m.mark}`;
      app.route({
        method,
        url: `/api/v1/posts/:postId/${m.path}`,
        ...api(
          write,
          {
            operationId: `${verb}${m.name}`,
            tags: TAGS,
            summary: method === "POST" ? m.notes : `Undo: ${m.notes.toLowerCase()}`,
            description: "Idempotent. 404 for an unknown or deleted post.",
            params: PostParams,
            response: { 204: NoContent, 403: E403, 404: E404("No such post, or deleted") },
          },
          prefix,
        ),
        handler: async (request, reply) => {
          const ctx = withActor(deps, request.actor);
          await (method === "POST" ? markPost : unmarkPost)(ctx, request.params.postId, m.mark);
          return reply.status(204).send(null);
        },
      });
    }
  }

  app.route({
    method: "GET",
    url: "/api/v1/reactions/:entityId/emotions",
    ...api(
      { scopes: READ_SCOPES, auth: "optional" },
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
