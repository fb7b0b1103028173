import { randomUUID } from "node:crypto";
import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
  SignJWT,
} from "jose";
import type { Config } from "../../config.js";
import type { Environment, UserActor } from "../../core/actor.js";
import { normalizeScope } from "../../core/scopes.js";
import { TtlCache } from "../../core/ttl-cache.js";
import { storeFailureOf } from "../../infra/db/failures.js";
import type { Deps } from "../context.js";
import { resolveUser } from "../identity/user-ref.js";
import { oauthRepository } from "./oauth.repository.js";
import { scopeString } from "./scope-words.js";
import { SIGNING_ALG } from "./signing-keys.js";

/** Tolerated difference between our clock and the token's `iat` / `exp` (and another issuer's). */
export const CLOCK_SKEW_SECONDS = 30;
/** RFC 9068: the `typ` of a JWT access token. */
export const ACCESS_TOKEN_TYP = "at+jwt";
/** The algorithms accepted from an external issuer: asymmetric only, never `none` or HMAC. */
const EXTERNAL_ALGS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

export interface AccessTokenSubject {
  userId: string;
  gcid: number;
  grantId: string;
  /** The OAuth client; null for an operator-minted token. */
  clientId: string | null;
  scopes: readonly string[];
  environment: string;
}

export interface SignedAccessToken {
  token: string;
  expiresIn: number;
}

/** Signs a short-lived access token (RFC 9068 profile) with the current key. */
export async function signAccessToken(
  deps: Deps,
  issuer: string,
  subject: AccessTokenSubject,
  ttlSeconds: number = deps.config.oauth.accessTokenTtl,
): Promise<SignedAccessToken> {
  const key = await deps.signingKeys.current();
  const now = Math.floor(deps.clock.now().getTime() / 1000);
  const token = await new SignJWT({
    client_id: subject.clientId ?? OPERATOR_CLIENT,
    scope: scopeString(subject.scopes, deps.config.scopePrefix),
    gcid: subject.gcid,
    env: subject.environment,
    sid: subject.grantId,
  })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: ACCESS_TOKEN_TYP })
    .setIssuer(issuer)
    .setAudience(deps.config.oauth.audience)
    .setSubject(subject.userId)
    .setJti(randomUUID())
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .sign(key.privateKey);
  return { token, expiresIn: ttlSeconds };
}

/** The client id recorded for tokens the operator mints from the CLI. */
export const OPERATOR_CLIENT = "operator";

/** Why a bearer token was refused, thrown inside verification and turned into a TokenRefusal. */
class Refused extends Error {
  constructor(
    readonly reason: string,
    readonly level: "info" | "warn" = "info",
  ) {
    super(reason);
  }
}

const builtInKeys =
  (deps: Deps): JWTVerifyGetKey =>
  async (header) => {
    const key = header.kid ? await deps.signingKeys.byKid(header.kid) : undefined;
    if (!key) throw new Refused(`unknown signing key (kid ${shown(header.kid ?? "none")})`);
    return key.publicKey;
  };

declare module "../context.js" {
  interface Deps {
    /** OAuth: the trusted external issuer's keys (fetched from its JWKS, and kept); none without one. */
    readonly externalKeys: JWTVerifyGetKey | undefined;
  }
}

/** The external issuer's key set (`createDeps`): fetched on first use, refetched for an unknown kid. */
export function createExternalKeys(config: Pick<Config, "oauth">): JWTVerifyGetKey | undefined {
  const external = config.oauth.external;
  if (!external) return undefined;
  return createRemoteJWKSet(new URL(external.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 });
}

const bareScopes = (claims: JWTPayload, prefix: string): string[] => {
  const raw = typeof claims.scope === "string" ? claims.scope.split(" ") : Array.isArray(claims.scp) ? claims.scp : [];
  const scopes = raw.map((s) => (typeof s === "string" ? normalizeScope(s, prefix) : null));
  return [...new Set(scopes.filter((s): s is NonNullable<typeof s> => s !== null))];
};

const environmentOf = (claims: JWTPayload): Environment => (claims.env === "real" ? "real" : "demo");

interface Verified {
  actor: UserActor;
  /** Seconds since the epoch. */
  exp: number;
  /** Our grant id and signing key; null for an external issuer's token. */
  sid: string | null;
  kid: string | null;
}

/**
 * Why a bearer token was refused, for the server's log and the 401's message and
 * `error_description`: never the token, only claims a client sent and what this server expects.
 * `warn` marks a cause that is usually a configuration mistake (issuer or audience mismatch).
 */
export interface TokenRefusal {
  refused: string;
  level: "info" | "warn";
}

const isRefusal = (value: Verified | TokenRefusal): value is TokenRefusal => "refused" in value;

/** A claim value of an unverified token, safe for a log line and a quoted header parameter. */
const shown = (value: unknown): string => {
  const text = (typeof value === "string" ? value : (JSON.stringify(value) ?? "none")).replace(
    /[^\x20-\x7e]|["\\]/g,
    "?",
  );
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
};

/** jose's error, or ours, as the cause a client and an operator can act on. */
function refusalOf(error: unknown, issuer: string, audience: string, claims: JWTPayload): TokenRefusal {
  if (error instanceof Refused) return { refused: error.reason, level: error.level };
  if (error instanceof errors.JWTExpired) {
    const at = typeof claims.exp === "number" ? ` at ${new Date(claims.exp * 1000).toISOString()}` : "";
    return { refused: `expired${at}`, level: "info" };
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === "missing") return { refused: `the claim ${error.claim} is missing`, level: "info" };
    if (error.claim === "iss") {
      return { refused: `issuer mismatch (token iss ${shown(claims.iss)}, expected ${issuer})`, level: "warn" };
    }
    if (error.claim === "aud") {
      return { refused: `audience mismatch (token aud ${shown(claims.aud)}, expected ${audience})`, level: "warn" };
    }
    if (error.claim === "typ")
      return { refused: `not an access token (typ must be ${ACCESS_TOKEN_TYP})`, level: "info" };
    if (error.claim === "iat" || error.claim === "nbf") {
      return { refused: `not valid yet (${error.claim} is in the future)`, level: "info" };
    }
    return { refused: `the claim ${error.claim} is not valid`, level: "info" };
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return { refused: "bad signature", level: "info" };
  if (error instanceof errors.JWKSNoMatchingKey) return { refused: "no key of the issuer matches", level: "info" };
  if (error instanceof errors.JWKSTimeout) return { refused: "the issuer's keys could not be fetched", level: "warn" };
  if (error instanceof errors.JOSEAlgNotAllowed) return { refused: "unsupported algorithm", level: "info" };
  return { refused: "malformed token", level: "info" };
}

/**
 * Bearer verification for every operation: signature (ES256 by one of our trusted keys, or the
 * external issuer's JWKS), issuer, audience, expiry with CLOCK_SKEW_SECONDS of tolerance, and, for
 * our own tokens, that the grant they came from has not been revoked. Null when anything fails.
 */
export async function verifyAccessToken(deps: Deps, issuer: string, token: string): Promise<UserActor | null> {
  const verified = await verify(deps, issuer, token);
  return isRefusal(verified) ? null : verified.actor;
}

/**
 * The authenticator the HTTP layer uses: verifyAccessToken behind a cache of `authCacheTtlMs`
 * (like key pairs), never past the token's expiry. A revocation anywhere publishes
 * OAuthGrantRevoked, which evicts the grant's tokens here at once.
 */
export function createBearerAuthenticator(deps: Deps, issuer: () => string) {
  const cache = new TtlCache<Verified>(deps.config.authCacheTtlMs, 10_000, deps.clock);
  deps.bus.subscribeEverywhere("OAuthGrantRevoked", (event) => cache.evictWhere((v) => v.sid === event.grantId));
  return async (token: string): Promise<UserActor | TokenRefusal> => {
    const known = cache.get(token);
    if (known && (known.exp + CLOCK_SKEW_SECONDS) * 1000 > deps.clock.now().getTime()) {
      // A dropped signing key (rotate --drop-previous) ends its cached tokens too.
      if (known.kid === null || (await deps.signingKeys.byKid(known.kid))) return known.actor;
    }
    const verified = await verify(deps, issuer(), token);
    if (isRefusal(verified)) return verified;
    cache.set(token, verified);
    return verified.actor;
  };
}

async function verify(deps: Deps, issuer: string, token: string): Promise<Verified | TokenRefusal> {
  const audience = deps.config.oauth.audience;
  let unverified: JWTPayload;
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(token).alg;
    unverified = decodeJwt(token);
  } catch {
    return { refused: "malformed token (not a JWT)", level: "info" };
  }
  try {
    const external = deps.config.oauth.external;
    if (external && deps.externalKeys && unverified.iss === external.issuer && unverified.iss !== issuer) {
      return await verifyExternal(deps, external, deps.externalKeys, token);
    }
    // Checked before the signature, so a token of another issuer (often: the same server on
    // another port) says so rather than "unknown signing key".
    if (unverified.iss !== issuer) {
      const expected = external ? `${issuer} or ${external.issuer}` : issuer;
      throw new Refused(`issuer mismatch (token iss ${shown(unverified.iss ?? "none")}, expected ${expected})`, "warn");
    }
    if (alg !== SIGNING_ALG) throw new Refused(`unsupported algorithm ${shown(alg ?? "none")}`);
    const { payload } = await jwtVerify(token, builtInKeys(deps), {
      issuer,
      audience: deps.config.oauth.audience,
      algorithms: [SIGNING_ALG],
      typ: ACCESS_TOKEN_TYP,
      clockTolerance: CLOCK_SKEW_SECONDS,
      currentDate: deps.clock.now(),
      requiredClaims: ["exp", "iat", "sub", "sid", "gcid"],
    });
    notIssuedInTheFuture(deps, payload);
    const { sub, sid, gcid, client_id: clientId } = payload;
    if (typeof sid !== "string" || typeof gcid !== "number" || typeof sub !== "string") {
      throw new Refused("the claims sid, gcid or sub have the wrong type");
    }
    if (!(await oauthRepository(deps.db.kysely).isGrantActive(sid, sub))) throw new Refused("revoked");
    return {
      actor: {
        kind: "user",
        userId: sub,
        gcid,
        via: "oauth",
        credentialId: typeof clientId === "string" ? clientId : OPERATOR_CLIENT,
        scopes: bareScopes(payload, deps.config.scopePrefix),
        environment: environmentOf(payload),
      },
      exp: payload.exp!,
      sid,
      kid: decodeProtectedHeader(token).kid ?? null,
    };
  } catch (error) {
    // The store away is not the token's fault, nor a reason to tell the client to sign in again:
    // a 503, as for any request then (decision 0107).
    if (storeFailureOf(error)) throw error;
    if (!(error instanceof Refused || error instanceof errors.JOSEError)) {
      // Not the token's fault (the store, the external issuer's JWKS endpoint): refused, and logged.
      deps.log.warn({ err: error }, "a bearer token could not be checked");
      return { refused: "it could not be checked now", level: "warn" };
    }
    return refusalOf(error, issuer, audience, unverified);
  }
}

/**
 * jose checks `exp` and `nbf` but takes any `iat`: a token that says it was issued later than now
 * (beyond the skew allowed for `exp`) was made by a wrong clock or a forger, and is refused.
 */
function notIssuedInTheFuture(deps: Deps, payload: JWTPayload): void {
  const now = Math.floor(deps.clock.now().getTime() / 1000);
  if (typeof payload.iat === "number" && payload.iat > now + CLOCK_SKEW_SECONDS) {
    throw new Refused(`issued in the future (iat ${new Date(payload.iat * 1000).toISOString()})`);
  }
}

/**
 * A token of a trusted external issuer: its `sub` names a local user by id, gcid or username
 * (the user must exist here); its scopes come from `scope` (space-separated) or `scp` (array).
 */
async function verifyExternal(
  deps: Deps,
  external: { issuer: string; jwksUrl: string },
  keys: JWTVerifyGetKey,
  token: string,
): Promise<Verified> {
  const { payload } = await jwtVerify(token, keys, {
    issuer: external.issuer,
    audience: deps.config.oauth.audience,
    algorithms: EXTERNAL_ALGS,
    clockTolerance: CLOCK_SKEW_SECONDS,
    currentDate: deps.clock.now(),
    requiredClaims: ["exp", "sub"],
  });
  notIssuedInTheFuture(deps, payload);
  const user = await resolveUser(deps.db.kysely, payload.sub!).catch((error: unknown) => {
    if (storeFailureOf(error)) throw error;
    return null;
  });
  if (!user) throw new Refused(`its subject ${shown(payload.sub)} is not a user here`);
  const clientId = typeof payload.client_id === "string" ? payload.client_id : payload.azp;
  return {
    actor: {
      kind: "user",
      userId: user.id,
      gcid: user.gcid,
      via: "oauth",
      credentialId: typeof clientId === "string" ? clientId : external.issuer,
      scopes: bareScopes(payload, deps.config.scopePrefix),
      environment: environmentOf(payload),
    },
    exp: payload.exp!,
    sid: null,
    kid: null,
  };
}

/** For revocation: the grant of one of our access tokens, whatever its expiry; null otherwise. */
export async function grantOfAccessToken(deps: Deps, issuer: string, token: string): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(token, builtInKeys(deps), {
      issuer,
      audience: deps.config.oauth.audience,
      algorithms: [SIGNING_ALG],
      typ: ACCESS_TOKEN_TYP,
      currentDate: new Date(0),
    });
    return typeof payload.sid === "string" ? payload.sid : null;
  } catch {
    return null;
  }
}
