import type { FastifyInstance } from "fastify";
import { KNOWN_SCOPES, withPrefix } from "../../core/scopes.js";
import type { Deps } from "../context.js";
import { publishedKeys } from "./signing-keys.js";

/** RFC 8414 discovery and the JSON Web Key Set that verifies access tokens. */
export function registerOAuthMetadata(scope: FastifyInstance, deps: Deps, issuer: () => string): void {
  scope.get("/.well-known/oauth-authorization-server", { schema: { hide: true } }, async (_request, reply) => {
    const base = issuer();
    void reply.header("Cache-Control", "public, max-age=300");
    return {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      jwks_uri: `${base}/oauth/jwks`,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
      code_challenge_methods_supported: ["S256"],
      scopes_supported: KNOWN_SCOPES.map((s) => withPrefix(s, deps.config.scopePrefix)),
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${base}/docs`,
    };
  });

  scope.get("/oauth/jwks", { schema: { hide: true } }, async (_request, reply) => {
    void reply.header("Cache-Control", "public, max-age=300").header("Content-Type", "application/jwk-set+json");
    return publishedKeys(deps);
  });
}
