import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ANY_AUTHENTICATED } from "../../core/scopes.js";
import type { Deps } from "../context.js";
import {
  type AuthorizationCheck,
  type AuthorizationParams,
  checkAuthorizationRequest,
  issueAuthorizationCode,
  redirectBack,
  sameToken,
} from "./authorize.js";
import { consentPage, errorPage, loginPage } from "./oauth.pages.js";
import { authParamsOf, collect, formOf, sendPage } from "./oauth-forms.routes.js";
import { findSession, newCsrfToken, SESSION_TTL_SECONDS, signOut } from "./sessions.js";
import { signInWithPassword } from "./sign-in.js";

const SESSION_COOKIE = "sta_oauth_session";
const LOGIN_CSRF_COOKIE = "sta_oauth_login_csrf";
/** Names the account this browser signed in to (decision 0104): its failures are counted apart. */
const DEVICE_COOKIE = "sta_oauth_device";

/** The sign-in and consent pages of the authorization code flow (decision 0035). */
export function registerOAuthPages(scope: FastifyInstance, deps: Deps, issuer: () => string): void {
  const secureCookies = () => issuer().startsWith("https:");

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
      : sendPage(reply, 400, errorPage("This sign-in link is not valid", check.description));

  const showLogin = (
    reply: FastifyReply,
    request: FastifyRequest,
    check: Extract<AuthorizationCheck, { ok: true }>,
    status = 200,
    extra: { username?: string; error?: string } = {},
  ) => {
    const csrfToken = request.cookies[LOGIN_CSRF_COOKIE] ?? newCsrfToken();
    void reply.setCookie(LOGIN_CSRF_COOKIE, csrfToken, cookieOptions(3600));
    return sendPage(
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
    sendPage(
      reply,
      403,
      errorPage(
        "This form has expired",
        "The form was sent without a valid security token (it may have expired or come from another site). Go back to the application and start again.",
      ),
    );

  scope.get("/oauth/authorize", { schema: { hide: true } }, async (request, reply) => {
    const query = collect(new URL(request.url, "http://local").searchParams);
    const check = await checkAuthorizationRequest(deps, authParamsOf(query.values), query.duplicates);
    if (!check.ok) return refuse(reply, check);
    const session = await findSession(deps, request.cookies[SESSION_COOKIE]);
    if (!session) return showLogin(reply, request, check);
    return sendPage(
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

  // Password guessing spends the caller's (the client address's) default and writes pools, and
  // the account's sign-in throttle (decision 0104).
  const loginAccess = { auth: "optional" as const, scopes: ANY_AUTHENTICATED, rateLimit: "writes" as const };
  scope.post("/oauth/login", { schema: { hide: true }, config: { access: loginAccess } }, async (request, reply) => {
    const form = formOf(request);
    if (!sameToken(request.cookies[LOGIN_CSRF_COOKIE], form.values.csrf_token)) return csrfRefused(reply);
    const check = await checkAuthorizationRequest(deps, authParamsOf(form.values), form.duplicates);
    if (!check.ok) return refuse(reply, check);
    const username = form.values.username ?? "";
    const result = await signInWithPassword(deps, {
      username,
      password: form.values.password ?? "",
      address: request.ip,
      deviceCookie: request.cookies[DEVICE_COOKIE],
    });
    if (result.kind === "throttled") {
      void reply.header("retry-after", String(result.retryAfter));
      const wait = result.retryAfter === 1 ? "1 second" : `${result.retryAfter} seconds`;
      const error = `Too many failed sign-ins for this account; try again in ${wait}.`;
      return showLogin(reply, request, check, 429, { username, error });
    }
    if (result.kind === "wrong") {
      return showLogin(reply, request, check, 401, { username, error: "Wrong username or password." });
    }
    void reply
      .setCookie(SESSION_COOKIE, result.sessionId, cookieOptions(SESSION_TTL_SECONDS))
      .setCookie(DEVICE_COOKIE, result.deviceCookie, cookieOptions(deps.config.signIn.deviceCookieSeconds))
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
      return sendPage(reply, 400, errorPage("Choose Allow or Deny", "The form did not say whether you allow access."));
    }
    const code = await issueAuthorizationCode(deps, auth, session.userId);
    return reply.redirect(redirectBack(auth.redirectUri, issuer(), { code, state: auth.state }), 303);
  });
}
