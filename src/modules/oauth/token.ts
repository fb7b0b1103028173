import { randomBytes } from "node:crypto";
import { isoNow } from "../../core/clock.js";
import { hashSecret, newId } from "../../core/ids.js";
import { recordAudit } from "../audit/record-audit.js";
import { type Deps, transact } from "../context.js";
import { resolveUser } from "../identity/user-ref.js";
import { signAccessToken } from "./access-tokens.js";
import { pkceMatches } from "./authorize.js";
import { revokeGrant } from "./grants.js";
import { type ClientRow, type GrantRow, oauthRepository } from "./oauth.repository.js";
import { OAuthError } from "./oauth-error.js";
import { parseScopeParam, scopeString } from "./scope-words.js";

/** The token response (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

type Params = Record<string, string | undefined>;

const required = (params: Params, name: string): string => {
  const value = params[name];
  if (value === undefined || value === "") throw new OAuthError("invalid_request", `${name} is missing`);
  return value;
};

/** POST /oauth/token for an authenticated client. */
export async function exchangeToken(
  deps: Deps,
  issuer: string,
  client: ClientRow,
  params: Params,
): Promise<TokenResponse> {
  const grantType = required(params, "grant_type");
  if (grantType === "authorization_code") return redeemCode(deps, issuer, client, params);
  if (grantType === "refresh_token") return refresh(deps, issuer, client, params);
  throw new OAuthError("unsupported_grant_type", `grant_type ${grantType} is not supported`);
}

async function redeemCode(deps: Deps, issuer: string, client: ClientRow, params: Params): Promise<TokenResponse> {
  const code = required(params, "code");
  const repo = oauthRepository(deps.db.kysely);
  const codeHash = hashSecret(code);
  const row = await repo.findCode(codeHash);
  if (!row || row.clientId !== client.id) throw new OAuthError("invalid_grant", "Unknown authorization code");
  if (row.usedAt !== null) {
    // RFC 6749 §4.1.2: a replayed code revokes what it was exchanged for.
    if (row.grantId) await revokeGrant(deps, row.grantId, "authorization code replayed");
    throw new OAuthError("invalid_grant", "The authorization code was already used");
  }
  if (row.expiresAt <= isoNow(deps.clock)) throw new OAuthError("invalid_grant", "The authorization code has expired");
  const redirectUri = params.redirect_uri;
  if ((row.redirectUriGiven === 1 || redirectUri !== undefined) && redirectUri !== row.redirectUri) {
    throw new OAuthError("invalid_grant", "redirect_uri does not match the authorization request");
  }
  const verifier = params.code_verifier;
  if (row.codeChallenge !== null) {
    if (!verifier) throw new OAuthError("invalid_grant", "code_verifier is required (PKCE)");
    if (!pkceMatches(verifier, row.codeChallenge))
      throw new OAuthError("invalid_grant", "code_verifier does not match");
  } else if (verifier !== undefined) {
    throw new OAuthError("invalid_grant", "code_verifier sent but no code_challenge was in the authorization request");
  }

  const user = await resolveUser(deps.db.kysely, row.userId);
  const scopes = JSON.parse(row.scopes) as string[];
  const grant: GrantRow = {
    id: newId(),
    clientId: client.id,
    userId: row.userId,
    scopes: row.scopes,
    environment: client.environment,
    createdAt: isoNow(deps.clock),
    revokedAt: null,
    revokedReason: null,
  };
  const refreshToken = await transact(deps, async (trx) => {
    const tx = oauthRepository(trx);
    await tx.insertGrant(grant);
    if (!(await tx.spendCode(codeHash, grant.createdAt, grant.id))) {
      throw new OAuthError("invalid_grant", "The authorization code was already used");
    }
    return newRefreshToken(deps, trx, grant.id, scopes);
  });
  return tokenResponse(deps, issuer, grant, user.gcid, scopes, refreshToken);
}

/** A fresh access token of the grant, with the new refresh token, as the token response. */
async function tokenResponse(
  deps: Deps,
  issuer: string,
  grant: GrantRow,
  gcid: number,
  scopes: readonly string[],
  refreshToken: string,
): Promise<TokenResponse> {
  const access = await signAccessToken(deps, issuer, {
    userId: grant.userId,
    gcid,
    grantId: grant.id,
    clientId: grant.clientId,
    scopes,
    environment: grant.environment,
  });
  return {
    access_token: access.token,
    token_type: "Bearer",
    expires_in: access.expiresIn,
    refresh_token: refreshToken,
    scope: scopeString(scopes, deps.config.scopePrefix),
  };
}

async function newRefreshToken(
  deps: Deps,
  trx: Parameters<typeof oauthRepository>[0],
  grantId: string,
  scopes: readonly string[],
): Promise<string> {
  const token = `sta_rt_${randomBytes(32).toString("base64url")}`;
  const now = deps.clock.now();
  await oauthRepository(trx).insertRefreshToken({
    tokenHash: hashSecret(token),
    grantId,
    scopes: JSON.stringify(scopes),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + deps.config.oauth.refreshTokenTtl * 1000).toISOString(),
    usedAt: null,
  });
  return token;
}

/**
 * Rotation (RFC 9700 §4.14.2): every use spends the refresh token and returns a new one of the
 * same family (grant). Presenting a spent one means two parties hold it: the whole family is
 * revoked, access tokens included, and the answer is invalid_grant.
 */
async function refresh(deps: Deps, issuer: string, client: ClientRow, params: Params): Promise<TokenResponse> {
  const presented = required(params, "refresh_token");
  const repo = oauthRepository(deps.db.kysely);
  const tokenHash = hashSecret(presented);
  const row = await repo.findRefreshToken(tokenHash);
  const grant = row ? await repo.findGrant(row.grantId) : undefined;
  if (!row || !grant || grant.clientId !== client.id) throw new OAuthError("invalid_grant", "Unknown refresh token");
  const now = isoNow(deps.clock);
  const reuse = async () => {
    const details = { grantId: grant.id, clientId: client.id };
    await recordAudit(deps, { action: "refresh-token.reused", outcome: "refused", userId: grant.userId, details });
    await revokeGrant(deps, grant.id, "refresh token reuse");
    return new OAuthError("invalid_grant", "The refresh token was already used; every token of this grant is revoked");
  };
  if (grant.revokedAt !== null) throw new OAuthError("invalid_grant", "The grant of this refresh token was revoked");
  if (row.usedAt !== null) throw await reuse();
  if (row.expiresAt <= now) throw new OAuthError("invalid_grant", "The refresh token has expired");

  const granted = JSON.parse(row.scopes) as string[];
  let scopes = granted;
  if (params.scope !== undefined) {
    const asked = parseScopeParam(params.scope, deps.config.scopePrefix);
    const beyond = [...asked.unknown, ...asked.scopes.filter((s) => !granted.includes(s))];
    if (beyond.length > 0 || asked.scopes.length === 0) {
      throw new OAuthError("invalid_scope", `scope may only narrow the original grant (not: ${beyond.join(" ")})`);
    }
    scopes = asked.scopes;
  }

  const next = await transact(deps, async (trx) => {
    if (!(await oauthRepository(trx).spendRefreshToken(tokenHash, now))) return null;
    return newRefreshToken(deps, trx, grant.id, granted);
  });
  if (next === null) throw await reuse();
  const user = await resolveUser(deps.db.kysely, grant.userId);
  return tokenResponse(deps, issuer, grant, user.gcid, scopes, next);
}
