import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Deps } from "../context.js";
import { authenticateClient, type ClientCredentials } from "./clients.js";
import { OAuthError } from "./oauth-error.js";
import { formOf } from "./oauth-forms.routes.js";
import { revokeToken } from "./revoke.js";
import { exchangeToken } from "./token.js";

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
function clientCredentials(authorization: string | undefined, values: Record<string, string>): ClientCredentials {
  const basic = authorization ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization) : null;
  if (authorization && !basic) throw new OAuthError("invalid_client", "Only Basic client authentication is accepted");
  if (basic) {
    const decoded = Buffer.from(basic[1]!, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw new OAuthError("invalid_client", "Malformed Basic credentials");
    const unform = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, " "));
      } catch {
        throw new OAuthError("invalid_client", "Malformed Basic credentials");
      }
    };
    const clientId = unform(decoded.slice(0, colon));
    if (values.client_secret !== undefined) {
      throw new OAuthError("invalid_request", "Use one client authentication method, not Basic and client_secret");
    }
    if (values.client_id !== undefined && values.client_id !== clientId) {
      throw new OAuthError("invalid_request", "client_id in the body differs from the Basic credentials");
    }
    // Some clients (Swagger UI) send a public client as `client_id:` with an empty secret.
    const secret = unform(decoded.slice(colon + 1));
    return { clientId, clientSecret: secret === "" ? undefined : secret, method: "client_secret_basic" };
  }
  return {
    clientId: values.client_id,
    clientSecret: values.client_secret,
    method: values.client_secret !== undefined ? "client_secret_post" : "none",
  };
}

/** The form of a token or revocation request (no parameter may repeat) and the client it authenticates. */
async function clientForm(deps: Deps, request: FastifyRequest) {
  const form = formOf(request);
  if (form.duplicates.length > 0) {
    throw new OAuthError("invalid_request", `Parameters must not repeat: ${form.duplicates.join(", ")}`);
  }
  const client = await authenticateClient(deps, clientCredentials(request.headers.authorization, form.values));
  return { form, client };
}

/** The token and revocation endpoints (RFC 6749 §3.2, RFC 7009): forms in, JSON out, never cached. */
export function registerOAuthEndpoints(scope: FastifyInstance, deps: Deps, issuer: () => string): void {
  scope.post("/oauth/token", { schema: { hide: true } }, async (request, reply) => {
    const { form, client } = await clientForm(deps, request);
    const tokens = await exchangeToken(deps, issuer(), client, form.values);
    void reply.header("Cache-Control", "no-store").header("Pragma", "no-cache");
    return tokens;
  });

  scope.post("/oauth/revoke", { schema: { hide: true } }, async (request, reply) => {
    const { form, client } = await clientForm(deps, request);
    if (!form.values.token) throw new OAuthError("invalid_request", "token is missing");
    await revokeToken(deps, issuer(), client, form.values.token);
    return reply.status(200).header("Cache-Control", "no-store").send();
  });
}
