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

export function registerGraphRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  const write = { scopes: WRITE_SCOPES };

  for (const [path, on, off, what] of [
    ["follows", followUser, unfollowUser, "Follow"],
    ["blocks", blockUser, unblockUser, "Block"],
  ] as const) {
    for (const method of ["POST", "DELETE"] as const) {
      app.route({
        method,
        url: `/api/v1/users/:userId/${path}`,
        ...api(
          write,
          {
            operationId: `${method === "POST" ? "" : "un"}${what.toLowerCase()}User`,
            tags: ["Users"],
            summary: `${method === "POST" ? what : `Un${what.toLowerCase()}`} a user`,
            description:
              path === "follows"
                ? "Idempotent. Their posts then appear in GET /api/v1/feeds/following and for-you. 403 across a block."
                : "Idempotent. Both users' posts disappear from each other's feeds, follows between them end.",
            params: UserParams,
            querystring: Type.Object({}),
            response: { 204: NoContent, 403: E403, 404: E404("No such user") },
          },
          prefix,
        ),
        handler: async (request, reply) => {
          await (method === "POST" ? on : off)(withActor(deps, request.actor), request.params.userId);
          return reply.status(204).send(null);
        },
      });
    }
  }
}
