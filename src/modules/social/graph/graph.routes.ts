import { Type } from "typebox";
import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { NoContent } from "../../../http/schemas.js";
import { type Deps, withActor } from "../../context.js";
import { WRITE_SCOPES } from "../shared/access.js";
import { E403, E404 } from "../shared/errors.schemas.js";
import { UserParams } from "../shared/social.schemas.js";
import { blockUser } from "./block-user.js";
import { followUser } from "./follow-user.js";
import { unblockUser } from "./unblock-user.js";
import { unfollowUser } from "./unfollow-user.js";

const FOLLOWS = "Idempotent. Their posts then appear in GET /api/v1/feeds/following and for-you. 403 across a block.";
const BLOCKS = "Idempotent. Both users' posts disappear from each other's feeds, follows between them end.";

export function registerGraphRoutes(app: App, deps: Deps): void {
  userRoute(app, deps, "POST", "/api/v1/users/:userId/follows", {
    operationId: "followUser",
    summary: "Follow a user",
    description: FOLLOWS,
    run: followUser,
  });
  userRoute(app, deps, "DELETE", "/api/v1/users/:userId/follows", {
    operationId: "unfollowUser",
    summary: "Unfollow a user",
    description: FOLLOWS,
    run: unfollowUser,
  });
  userRoute(app, deps, "POST", "/api/v1/users/:userId/blocks", {
    operationId: "blockUser",
    summary: "Block a user",
    description: BLOCKS,
    run: blockUser,
  });
  userRoute(app, deps, "DELETE", "/api/v1/users/:userId/blocks", {
    operationId: "unblockUser",
    summary: "Unblock a user",
    description: BLOCKS,
    run: unblockUser,
  });
}

/** A change of the caller's relation to another user: idempotent, no content. */
function userRoute(
  app: App,
  deps: Deps,
  method: "POST" | "DELETE",
  url: string,
  op: { operationId: string; summary: string; description: string; run: typeof followUser },
): void {
  app.route({
    method,
    url,
    ...api(
      { scopes: WRITE_SCOPES },
      {
        operationId: op.operationId,
        tags: ["Users"],
        summary: op.summary,
        description: op.description,
        params: UserParams,
        querystring: Type.Object({}),
        response: { 204: NoContent, 403: E403, 404: E404("No such user") },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request, reply) => {
      await op.run(withActor(deps, request.actor), request.params.userId);
      return reply.status(204).send(null);
    },
  });
}
