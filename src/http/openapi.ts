import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { KNOWN_SCOPES, SCOPES, withPrefix } from "../core/scopes.js";

export const API_VERSION = "v1.342.0";

/** OpenAPI 3.1 generated from the route schemas, served at /openapi.json, with a try-it page at /docs. */
export async function registerOpenApi(app: FastifyInstance, scopePrefix: string): Promise<void> {
  const scopes = Object.fromEntries(KNOWN_SCOPES.map((s) => [withPrefix(s, scopePrefix), SCOPES[s]]));
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Social Trading, Demo Order and Watchlist Public API",
        version: API_VERSION,
        description:
          "Self-hosted implementation of the public API v1. Authenticate with exactly one of an OAuth 2.0 " +
          "bearer token or the x-api-key / x-user-key pair. Errors share one body: " +
          "`{ errorCode, errorMessage, requestId, details? }`. A 403 `InsufficientPermissions` lists the " +
          "scopes the operation accepts in `details`; a method a path does not have is answered 405 " +
          "`MethodNotAllowed` with an `Allow` header. Live rates, your order events and notifications " +
          "are pushed over a WebSocket at `/ws` in upstream's real-time protocol (described in the " +
          "repository's docs/realtime.md).",
      },
      servers: [{ url: "/", description: "This server" }],
      components: {
        securitySchemes: {
          oauth2: {
            type: "oauth2",
            description: "OAuth 2.0 authorization code flow with PKCE (S256).",
            flows: {
              authorizationCode: {
                authorizationUrl: "/oauth/authorize",
                tokenUrl: "/oauth/token",
                refreshUrl: "/oauth/token",
                scopes,
              },
            },
          },
          apiKey: {
            type: "apiKey",
            in: "header",
            name: "x-api-key",
            description: "The application's key; send with x-user-key.",
          },
          userKey: {
            type: "apiKey",
            in: "header",
            name: "x-user-key",
            description: "The user's key; send with x-api-key.",
          },
        },
      },
    },
  });
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    uiConfig: { persistAuthorization: true },
    // "Authorize" with oauth2 runs the code flow against the built-in server; public clients need PKCE.
    initOAuth: { usePkceWithAuthorizationCodeGrant: true },
  });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
