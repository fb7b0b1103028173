import { api } from "../../http/access.js";
import type { App } from "../../http/app-type.js";
import { type Deps, withActor } from "../context.js";
import { GET_ME_SCOPES, getMe } from "./get-me.js";
import { MeResponse } from "./identity.schemas.js";

export function registerIdentityRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  app.route({
    method: "GET",
    url: "/api/v1/me",
    ...api(
      { scopes: GET_ME_SCOPES },
      {
        operationId: "getAuthenticatedUserProfile",
        tags: ["Identity"],
        summary: "Get the authenticated user's profile and the credential's scopes",
        response: { 200: MeResponse },
      },
      prefix,
    ),
    handler: async (request) => getMe(withActor(deps, request.actor)),
  });
}
