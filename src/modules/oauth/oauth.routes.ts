import cookie from "@fastify/cookie";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { UserActor } from "../../core/actor.js";
import { AppError } from "../../core/errors.js";
import type { App } from "../../http/app-type.js";
import type { Deps } from "../context.js";
import { createBearerAuthenticator, type TokenRefusal } from "./access-tokens.js";
import { issuerFor } from "./issuer.js";
import { errorPage } from "./oauth.pages.js";
import { registerOAuthEndpoints } from "./oauth-endpoints.routes.js";
import { OAuthError } from "./oauth-error.js";
import { collect, sendPage } from "./oauth-forms.routes.js";
import { registerOAuthMetadata } from "./oauth-metadata.routes.js";
import { registerOAuthPages } from "./oauth-pages.routes.js";

const FORM_LIMIT = 64 * 1024;

/** The issuer this server speaks for: PUBLIC_URL, else the address it actually listens on. */
export function listeningIssuer(app: FastifyInstance, deps: Deps): string {
  const address = app.server.listening ? app.server.address() : null;
  return issuerFor(deps.config, typeof address === "object" && address ? address.port : undefined);
}

/** The bearer authenticator of src/http/auth.ts. */
export const bearerAuthenticator = (
  app: FastifyInstance,
  deps: Deps,
): ((token: string) => Promise<UserActor | TokenRefusal>) =>
  createBearerAuthenticator(deps, () => listeningIssuer(app, deps));

/** The authorization server: its discovery documents, its sign-in and consent pages, its token endpoints. */
export function registerOAuthRoutes(app: App, deps: Deps): void {
  const issuer = () => listeningIssuer(app, deps);

  void app.register(async (scope) => {
    await scope.register(cookie);
    // The OAuth endpoints read forms (RFC 6749), never JSON: their own parser, in their own scope.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: FORM_LIMIT },
      (_request, body, done) => done(null, collect(new URLSearchParams(body as string))),
    );

    const isEndpoint = (request: FastifyRequest) => /^\/oauth\/(token|revoke)(\?|$)/.test(request.url);
    scope.setErrorHandler((error, request, reply) => {
      if (error instanceof AppError) {
        // From the shared hooks (the login page's rate limit): keep their status and headers.
        void sendPage(reply, error.status, errorPage("Please wait", error.message));
        return;
      }
      const oauth =
        error instanceof OAuthError
          ? error
          : (error as { statusCode?: number }).statusCode !== undefined &&
              (error as { statusCode: number }).statusCode < 500
            ? new OAuthError("invalid_request", "Send the parameters as application/x-www-form-urlencoded")
            : new OAuthError("server_error", "An unexpected error occurred");
      if (oauth.status >= 500) request.log.error({ err: error }, "oauth request failed");
      if (isEndpoint(request)) {
        if (oauth.error === "invalid_client" && request.headers.authorization) {
          void reply.header("WWW-Authenticate", 'Basic realm="oauth", charset="UTF-8"');
        }
        void reply
          .status(oauth.status)
          .header("Cache-Control", "no-store")
          .send({ error: oauth.error, error_description: oauth.message });
        return;
      }
      void sendPage(reply, oauth.status, errorPage("Something went wrong", oauth.message));
    });

    registerOAuthMetadata(scope, deps, issuer);
    registerOAuthPages(scope, deps, issuer);
    registerOAuthEndpoints(scope, deps, issuer);
  });
}
