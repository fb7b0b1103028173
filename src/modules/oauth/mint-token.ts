import { requireSystem } from "../../core/access.js";
import { actorLabel } from "../../core/audit.js";
import { isoNow } from "../../core/clock.js";
import { AppError, invalid } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import { recordAudit } from "../audit/record-audit.js";
import { type Ctx, transact } from "../context.js";
import { parseScopes } from "../identity/key-pairs.js";
import { resolveUser } from "../identity/user-ref.js";
import { signAccessToken } from "./access-tokens.js";
import { issuerFor } from "./issuer.js";
import { oauthRepository } from "./oauth.repository.js";
import { scopeString } from "./scope-words.js";
import { MAX_TOKEN_TTL } from "./signing-keys.js";

export interface MintTokenInput {
  user: string;
  scopes: readonly string[];
  ttlSeconds?: number | undefined;
  environment?: string | undefined;
  /** Defaults to the configured issuer (PUBLIC_URL, or http://HOST:PORT). */
  issuer?: string | undefined;
}

export interface MintedToken {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
}

/**
 * `tokens create`: an access token for scripts and the sandbox, without the browser flow. It is a
 * grant of its own (no client, no refresh token), so it can be revoked like any other.
 */
export async function mintAccessToken(ctx: Ctx, input: MintTokenInput): Promise<MintedToken & { grantId: string }> {
  requireSystem(ctx.actor);
  const ttl = input.ttlSeconds ?? ctx.config.oauth.accessTokenTtl;
  if (!Number.isInteger(ttl) || ttl < 60 || ttl > MAX_TOKEN_TTL) {
    throw invalid("ttl", `must be a whole number of seconds from 60 to ${MAX_TOKEN_TTL}`);
  }
  const environment = (input.environment ?? "demo").toLowerCase();
  if (environment !== "demo" && environment !== "real") {
    throw new AppError("ValidationFailed", `environment must be demo or real (got "${input.environment}")`);
  }
  const scopes = parseScopes(input.scopes, ctx.config.scopePrefix);
  const user = await resolveUser(ctx.db.kysely, input.user);
  const grantId = newId();
  await transact(ctx, async (trx) => {
    await oauthRepository(trx).insertGrant({
      id: grantId,
      clientId: null,
      userId: user.id,
      scopes: JSON.stringify(scopes),
      environment,
      createdAt: isoNow(ctx.clock),
      revokedAt: null,
      revokedReason: null,
    });
    const details = { grantId, ttlSeconds: ttl, environment, scopes: scopes.join(" ") };
    const entry = { action: "access-token.minted", outcome: "success", actor: actorLabel(ctx.actor) } as const;
    await recordAudit(ctx, { ...entry, userId: user.id, details }, trx);
  });
  const signed = await signAccessToken(
    ctx,
    input.issuer ?? issuerFor(ctx.config),
    { userId: user.id, gcid: user.gcid, grantId, clientId: null, scopes, environment },
    ttl,
  );
  return {
    access_token: signed.token,
    token_type: "Bearer",
    expires_in: signed.expiresIn,
    scope: scopeString(scopes, ctx.config.scopePrefix),
    grantId,
  };
}
