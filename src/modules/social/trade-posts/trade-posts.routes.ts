import { Type } from "typebox";
import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { type Deps, withActor } from "../../context.js";
import { READ_SCOPES, WRITE_SCOPES } from "../shared/access.js";
import { readTradePostChoice, setTradePostChoice } from "./trade-post-choice.js";

const Choice = Type.Object(
  { enabled: Type.Boolean({ description: "Whether your demo opens and closes are published as Trade posts" }) },
  { additionalProperties: false },
);
const NOTE =
  "Ours (decision 0175; upstream has no such operation): while on, each open and close of your own demo " +
  "positions (not your copies') becomes a post of type Trade with `metadata.trade`, tagged with the " +
  "instrument, in your feed and the instrument's. Off until you turn it on.";

export function registerTradePostRoutes(app: App, deps: Deps): void {
  app.route({
    method: "GET",
    url: "/api/v1/social/trade-posts",
    ...api(
      { scopes: READ_SCOPES },
      {
        operationId: "getTradePostChoice",
        tags: ["Feeds"],
        summary: "Whether your trades are published as posts",
        description: NOTE,
        response: { 200: Choice },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request) => readTradePostChoice(withActor(deps, request.actor)),
  });
  app.route({
    method: "PUT",
    url: "/api/v1/social/trade-posts",
    ...api(
      { scopes: WRITE_SCOPES },
      {
        operationId: "setTradePostChoice",
        tags: ["Feeds"],
        summary: "Publish your trades as posts, or stop",
        description: NOTE,
        body: Choice,
        response: { 200: Choice },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request) => setTradePostChoice(withActor(deps, request.actor), request.body.enabled),
  });
}
