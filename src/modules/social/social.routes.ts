import type { App } from "../../http/app-type.js";
import type { Deps } from "../context.js";
import { registerFeedRoutes } from "./feeds.routes.js";
import { registerInteractionRoutes } from "./interactions.routes.js";
import { registerPostRoutes } from "./posts.routes.js";

/** Posts, polls, comments, reactions, the social graph and every feed. */
export function registerSocialRoutes(app: App, deps: Deps): void {
  registerPostRoutes(app, deps);
  registerFeedRoutes(app, deps);
  registerInteractionRoutes(app, deps);
}
