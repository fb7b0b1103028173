import type { FastifyReply } from "fastify";
import type { App } from "../../http/app-type.js";
import type { Deps } from "../context.js";
import { listeningIssuer } from "../oauth/oauth.routes.js";
import { type Bundle, loadBundle } from "./bundle.js";
import { DASHBOARD_CSP, dashboardPage, NOT_BUILT_PAGE } from "./dashboard.page.js";
import { ensureDashboardClient } from "./ensure-client.js";

/** What the dashboard asks the user to allow (decision 0153): reading, demo trading, voting. */
export const DASHBOARD_SCOPES = [
  "user-info:read",
  "watchlist:read",
  "trade.demo:read",
  "trade.demo:write",
  "feed:read",
  "feed:write",
  "notifications:read",
  "notifications:write",
] as const;

const pageHeaders = (reply: FastifyReply) =>
  reply
    .header("Content-Security-Policy", DASHBOARD_CSP)
    .header("X-Frame-Options", "DENY")
    .header("X-Content-Type-Options", "nosniff")
    .header("Referrer-Policy", "no-referrer");

/**
 * The dashboard (decision 0153): a page, its script and its stylesheet, all public (the page signs
 * in through the OAuth flow and calls the API with the user's bearer token, like any app).
 */
export function registerDashboardRoutes(app: App, deps: Deps): void {
  let bundle: Promise<Bundle | null> | undefined;
  const bundled = () => {
    bundle ??= loadBundle();
    return bundle;
  };
  const clients = new Map<string, Promise<string>>();
  const clientFor = (redirectUri: string) => {
    let id = clients.get(redirectUri);
    if (!id) {
      id = ensureDashboardClient(deps, redirectUri);
      id.catch(() => clients.delete(redirectUri));
      clients.set(redirectUri, id);
    }
    return id;
  };

  app.get("/dashboard", { schema: { hide: true } }, async (_request, reply) => {
    const files = await bundled();
    pageHeaders(reply).header("Cache-Control", "no-store").type("text/html; charset=utf-8");
    if (!files) return reply.status(503).send(NOT_BUILT_PAGE);
    const redirectUri = `${listeningIssuer(app, deps)}/dashboard`;
    const prefix = deps.config.scopePrefix;
    return reply.send(
      dashboardPage(files, {
        clientId: await clientFor(redirectUri),
        redirectUri,
        scope: DASHBOARD_SCOPES.map((s) => `${prefix}:${s}`).join(" "),
        scopePrefix: prefix,
        // the sandbox's routes exist only when it is on (SANDBOX=off answers 404)
        sandbox: app.hasRoute({ method: "GET", url: "/sandbox/v1/market" }),
      }),
    );
  });

  const serveAsset =
    (type: string, pick: (b: Bundle) => Bundle["script"]) => async (_request: unknown, reply: FastifyReply) => {
      const files = await bundled();
      if (!files) return reply.status(404).type("text/plain; charset=utf-8").send("The dashboard is not built");
      // the page names each asset by its content hash (?v=…): a given URL never changes
      return pageHeaders(reply)
        .header("Cache-Control", "public, max-age=31536000, immutable")
        .type(type)
        .send(pick(files).body);
    };
  app.get(
    "/dashboard/app.js",
    { schema: { hide: true } },
    serveAsset("text/javascript; charset=utf-8", (b) => b.script),
  );
  app.get(
    "/dashboard/app.css",
    { schema: { hide: true } },
    serveAsset("text/css; charset=utf-8", (b) => b.style),
  );
}
