import cookie from "@fastify/cookie";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { UserActor } from "../../core/actor.js";
import { AppError } from "../../core/errors.js";
import { ANY_AUTHENTICATED, KNOWN_SCOPES, withPrefix } from "../../core/scopes.js";
import type { App } from "../../http/app-type.js";
import type { Deps } from "../context.js";
import { createBearerAuthenticator, type TokenRefusal } from "./access-tokens.js";
import {
  AUTHORIZATION_PARAMS,
  type AuthorizationCheck,
  type AuthorizationParams,
  checkAuthorizationRequest,
  issueAuthorizationCode,
  redirectBack,
  sameToken,
} from "./authorize.js";
import { authenticateClient, type ClientCredentials } from "./clients.js";
import { issuerFor } from "./issuer.js";
import { consentPage, errorPage, loginPage, PAGE_CSP } from "./oauth.pages.js";
import { OAuthError } from "./oauth-error.js";
import { revokeToken } from "./revoke.js";
import { findSession, newCsrfToken, SESSION_TTL_SECONDS, signIn, signOut } from "./sessions.js";
import { publishedKeys } from "./signing-keys.js";
import { exchangeToken } from "./token.js";

const SESSION_COOKIE = "sta_oauth_session";
const LOGIN_CSRF_COOKIE = "sta_oauth_login_csrf";
const FORM_LIMIT = 64 * 1024;

/** A parsed form or query: first value of each name, plus the names that were repeated. */
interface Form {
  values: Record<string, string>;
  duplicates: string[];
}

function collect(params: URLSearchParams): Form {
  const values: Record<string, string> = Object.create(null);
  const duplicates: string[] = [];
  for (const [name, value] of params) {
    if (name in values) {
      if (!duplicates.includes(name)) duplicates.push(name);
    } else values[name] = value;
  }
  return { values, duplicates };
}

const formOf = (request: FastifyRequest): Form =>
  (request.body as Form | undefined) ?? { values: Object.create(null), duplicates: [] };

const authParamsOf = (values: Record<string, string>): AuthorizationParams =>
  Object.fromEntries(AUTHORIZATION_PARAMS.filter((k) => values[k] !== undefined).map((k) => [k, values[k]]));

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

export function registerOAuthRoutes(app: App, deps: Deps): void {
  const issuer = () => listeningIssuer(app, deps);
  const secureCookies = () => issuer().startsWith("https:");

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
        void page(reply, error.status, errorPage("Please wait", error.message));
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
      void page(reply, oauth.status, errorPage("Something went wrong", oauth.message));
    });

    const page = (reply: FastifyReply, status: number, html: string) =>
      reply
        .status(status)
        .header("Content-Type", "text/html; charset=utf-8")
        .header("Content-Security-Policy", PAGE_CSP)
        .header("X-Frame-Options", "DENY")
        .header("X-Content-Type-Options", "nosniff")
        .header("Referrer-Policy", "no-referrer")
        .header("Cache-Control", "no-store")
        .send(html);

    const cookieOptions = (maxAge: number) => ({
      path: "/oauth",
      httpOnly: true,
      sameSite: "lax" as const,
      secure: secureCookies(),
      maxAge,
    });

    /** A failed check: an error page when the client can't be trusted, else back to the client. */
    const refuse = (reply: FastifyReply, check: Extract<AuthorizationCheck, { ok: false }>) =>
      check.redirect
        ? reply.redirect(
            redirectBack(check.redirectUri, issuer(), {
              error: check.error,
              error_description: check.description,
              state: check.state,
            }),
            303,
          )
        : page(reply, 400, errorPage("This sign-in link is not valid", check.description));

    const showLogin = (
      reply: FastifyReply,
      request: FastifyRequest,
      check: Extract<AuthorizationCheck, { ok: true }>,
      status = 200,
      extra: { username?: string; error?: string } = {},
    ) => {
      const csrfToken = request.cookies[LOGIN_CSRF_COOKIE] ?? newCsrfToken();
      void reply.setCookie(LOGIN_CSRF_COOKIE, csrfToken, cookieOptions(3600));
      return page(
        reply,
        status,
        loginPage({
          clientName: check.request.clientName,
          scopes: check.request.scopeWords,
          params: check.request.params,
          csrfToken,
          ...extra,
        }),
      );
    };

    const authorizeUrl = (params: AuthorizationParams) =>
      `/oauth/authorize?${new URLSearchParams(params as Record<string, string>).toString()}`;

    const csrfRefused = (reply: FastifyReply) =>
      page(
        reply,
        403,
        errorPage(
          "This form has expired",
          "The form was sent without a valid security token (it may have expired or come from another site). Go back to the application and start again.",
        ),
      );

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

    scope.get("/oauth/authorize", { schema: { hide: true } }, async (request, reply) => {
      const query = collect(new URL(request.url, "http://local").searchParams);
      const check = await checkAuthorizationRequest(deps, authParamsOf(query.values), query.duplicates);
      if (!check.ok) return refuse(reply, check);
      const session = await findSession(deps, request.cookies[SESSION_COOKIE]);
      if (!session) return showLogin(reply, request, check);
      return page(
        reply,
        200,
        consentPage({
          clientName: check.request.clientName,
          username: session.username,
          scopes: check.request.scopeWords,
          params: check.request.params,
          csrfToken: session.csrfToken,
          environment: check.request.environment,
        }),
      );
    });

    // Password guessing spends the caller's (the client address's) default and writes pools.
    const loginAccess = { auth: "optional" as const, scopes: ANY_AUTHENTICATED, rateLimit: "writes" as const };
    scope.post("/oauth/login", { schema: { hide: true }, config: { access: loginAccess } }, async (request, reply) => {
      const form = formOf(request);
      if (!sameToken(request.cookies[LOGIN_CSRF_COOKIE], form.values.csrf_token)) return csrfRefused(reply);
      const check = await checkAuthorizationRequest(deps, authParamsOf(form.values), form.duplicates);
      if (!check.ok) return refuse(reply, check);
      const username = form.values.username ?? "";
      const signedIn = await signIn(deps, username, form.values.password ?? "");
      if (!signedIn) {
        return showLogin(reply, request, check, 401, { username, error: "Wrong username or password." });
      }
      void reply
        .setCookie(SESSION_COOKIE, signedIn.sessionId, cookieOptions(SESSION_TTL_SECONDS))
        .clearCookie(LOGIN_CSRF_COOKIE, { path: "/oauth" });
      return reply.redirect(authorizeUrl(check.request.params), 303);
    });

    scope.post("/oauth/logout", { schema: { hide: true } }, async (request, reply) => {
      const form = formOf(request);
      const sessionId = request.cookies[SESSION_COOKIE];
      const session = await findSession(deps, sessionId);
      if (session && !sameToken(session.csrfToken, form.values.csrf_token)) return csrfRefused(reply);
      await signOut(deps, sessionId);
      void reply.clearCookie(SESSION_COOKIE, { path: "/oauth" });
      return reply.redirect(authorizeUrl(authParamsOf(form.values)), 303);
    });

    scope.post("/oauth/authorize", { schema: { hide: true } }, async (request, reply) => {
      const form = formOf(request);
      const check = await checkAuthorizationRequest(deps, authParamsOf(form.values), form.duplicates);
      if (!check.ok) return refuse(reply, check);
      const session = await findSession(deps, request.cookies[SESSION_COOKIE]);
      // Signed out meanwhile (expired session): sign in again, the request is kept.
      if (!session) return reply.redirect(authorizeUrl(check.request.params), 303);
      if (!sameToken(session.csrfToken, form.values.csrf_token)) return csrfRefused(reply);
      const { request: auth } = check;
      if (form.values.decision === "deny") {
        return reply.redirect(
          redirectBack(auth.redirectUri, issuer(), {
            error: "access_denied",
            error_description: "The user denied the request",
            state: auth.state,
          }),
          303,
        );
      }
      if (form.values.decision !== "allow") {
        return page(reply, 400, errorPage("Choose Allow or Deny", "The form did not say whether you allow access."));
      }
      const code = await issueAuthorizationCode(deps, auth, session.userId);
      return reply.redirect(redirectBack(auth.redirectUri, issuer(), { code, state: auth.state }), 303);
    });

    scope.post("/oauth/token", { schema: { hide: true } }, async (request, reply) => {
      const form = formOf(request);
      if (form.duplicates.length > 0) {
        throw new OAuthError("invalid_request", `Parameters must not repeat: ${form.duplicates.join(", ")}`);
      }
      const client = await authenticateClient(deps, clientCredentials(request.headers.authorization, form.values));
      const tokens = await exchangeToken(deps, issuer(), client, form.values);
      void reply.header("Cache-Control", "no-store").header("Pragma", "no-cache");
      return tokens;
    });

    scope.post("/oauth/revoke", { schema: { hide: true } }, async (request, reply) => {
      const form = formOf(request);
      if (form.duplicates.length > 0) {
        throw new OAuthError("invalid_request", `Parameters must not repeat: ${form.duplicates.join(", ")}`);
      }
      const client = await authenticateClient(deps, clientCredentials(request.headers.authorization, form.values));
      if (!form.values.token) throw new OAuthError("invalid_request", "token is missing");
      await revokeToken(deps, issuer(), client, form.values.token);
      return reply.status(200).header("Cache-Control", "no-store").send();
    });
  });
}
