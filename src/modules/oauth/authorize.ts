import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { isoNow } from "../../core/clock.js";
import { hashSecret } from "../../core/ids.js";
import { SCOPES, type GrantableScope as Scope } from "../../core/scopes.js";
import type { Deps } from "../context.js";
import { redirectUriMatches, redirectUrisOf } from "./clients.js";
import { oauthRepository } from "./oauth.repository.js";
import type { OAuthErrorCode } from "./oauth-error.js";
import { parseScopeParam } from "./scope-words.js";

export const AUTHORIZATION_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
] as const;
export type AuthorizationParams = Partial<Record<(typeof AUTHORIZATION_PARAMS)[number], string>>;

const CODE_TTL_SECONDS = 60;
/** RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is always 43 characters. */
const CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER_RE = /^[A-Za-z0-9._~-]{43,128}$/;

export interface AuthorizationRequest {
  clientId: string;
  clientName: string;
  environment: string;
  redirectUri: string;
  redirectUriGiven: boolean;
  scopes: Scope[];
  scopeWords: { scope: string; words: string }[];
  state: string | undefined;
  codeChallenge: string | undefined;
  /** The validated parameters, to carry through the login and consent forms. */
  params: AuthorizationParams;
}

export type AuthorizationCheck =
  | { ok: true; request: AuthorizationRequest }
  /** The client or its redirect URI cannot be trusted: show an error page, never redirect. */
  | { ok: false; redirect: false; error: OAuthErrorCode; description: string }
  /** Anything else is reported to the client on its redirect URI. */
  | { ok: false; redirect: true; redirectUri: string; error: OAuthErrorCode; description: string; state?: string };

/** Validates an authorization request (RFC 6749 §4.1.1, RFC 7636, RFC 9700 §2.1.1). */
export async function checkAuthorizationRequest(
  deps: Deps,
  params: AuthorizationParams,
  duplicates: readonly string[],
): Promise<AuthorizationCheck> {
  const page = (error: OAuthErrorCode, description: string): AuthorizationCheck => ({
    ok: false,
    redirect: false,
    error,
    description,
  });
  if (duplicates.includes("client_id") || duplicates.includes("redirect_uri")) {
    return page("invalid_request", "client_id and redirect_uri must appear once");
  }
  if (!params.client_id) return page("invalid_request", "client_id is missing");
  const client = await oauthRepository(deps.db.kysely).findClient(params.client_id);
  if (!client || client.revokedAt !== null) return page("invalid_request", "Unknown client_id");
  const registered = redirectUrisOf(client);
  let redirectUri: string;
  if (params.redirect_uri !== undefined) {
    if (!redirectUriMatches(registered, params.redirect_uri)) {
      return page("invalid_request", "redirect_uri is not registered for this client");
    }
    redirectUri = params.redirect_uri;
  } else if (registered.length === 1) {
    redirectUri = registered[0]!;
  } else {
    return page("invalid_request", "redirect_uri is required: this client registered several");
  }

  const state = params.state;
  const back = (error: OAuthErrorCode, description: string): AuthorizationCheck => ({
    ok: false,
    redirect: true,
    redirectUri,
    error,
    description,
    ...(state !== undefined && !duplicates.includes("state") ? { state } : {}),
  });
  if (duplicates.length > 0) return back("invalid_request", `Parameters must not repeat: ${duplicates.join(", ")}`);
  if (params.response_type !== "code") {
    return back("unsupported_response_type", "Only response_type=code (the authorization code flow) is supported");
  }
  if (state !== undefined && state.length > 2048)
    return back("invalid_request", "state is longer than 2048 characters");

  const challenge = params.code_challenge;
  const method = params.code_challenge_method;
  if (challenge === undefined) {
    if (!client.secretHash) return back("invalid_request", "A public client must use PKCE: send code_challenge (S256)");
    if (method !== undefined) return back("invalid_request", "code_challenge_method without code_challenge");
  } else {
    if (method !== "S256") return back("invalid_request", "code_challenge_method must be S256");
    if (!CHALLENGE_RE.test(challenge)) return back("invalid_request", "code_challenge must be 43 base64url characters");
  }

  const { scopes, unknown } = parseScopeParam(params.scope ?? "", deps.config.scopePrefix);
  if (unknown.length > 0) return back("invalid_scope", `Unknown scope: ${unknown.join(" ")}`);
  if (scopes.length === 0) return back("invalid_scope", "scope is required: name at least one scope");

  return {
    ok: true,
    request: {
      clientId: client.id,
      clientName: client.name,
      environment: client.environment,
      redirectUri,
      redirectUriGiven: params.redirect_uri !== undefined,
      scopes,
      scopeWords: scopes.map((s) => ({ scope: `${deps.config.scopePrefix}:${s}`, words: SCOPES[s] })),
      state,
      codeChallenge: challenge,
      params: Object.fromEntries(
        AUTHORIZATION_PARAMS.filter((k) => params[k] !== undefined).map((k) => [k, params[k]]),
      ) as AuthorizationParams,
    },
  };
}

/** Where the browser goes back to the client: the redirect URI plus code or error, state and iss. */
export function redirectBack(redirectUri: string, issuer: string, values: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(values)) if (v !== undefined) url.searchParams.set(k, v);
  url.searchParams.set("iss", issuer);
  return url.toString();
}

/** After Allow: a single-use code valid for a minute, bound to client, redirect URI and challenge. */
export async function issueAuthorizationCode(
  deps: Deps,
  request: AuthorizationRequest,
  userId: string,
): Promise<string> {
  const code = randomBytes(32).toString("base64url");
  const now = deps.clock.now();
  const repo = oauthRepository(deps.db.kysely);
  await repo.deleteStaleCodes(new Date(now.getTime() - 86_400_000).toISOString());
  await repo.insertCode({
    codeHash: hashSecret(code),
    clientId: request.clientId,
    userId,
    redirectUri: request.redirectUri,
    redirectUriGiven: request.redirectUriGiven ? 1 : 0,
    scopes: JSON.stringify(request.scopes),
    codeChallenge: request.codeChallenge ?? null,
    expiresAt: new Date(now.getTime() + CODE_TTL_SECONDS * 1000).toISOString(),
    usedAt: null,
    grantId: null,
    createdAt: isoNow(deps.clock),
  });
  return code;
}

/** RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER_RE.test(verifier)) return false;
  const computed = Buffer.from(createHash("sha256").update(verifier, "ascii").digest("base64url"));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/** Constant-time comparison of two opaque tokens (CSRF tokens). */
export function sameToken(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
