import { isIPv4 } from "node:net";
import { requireUser } from "../../../core/access.js";
import type { UserActor } from "../../../core/actor.js";
import { isoNow } from "../../../core/clock.js";
import { hashSecret, isUuid, newId, newSecret } from "../../../core/ids.js";
import { normalizeScope, withPrefix } from "../../../core/scopes.js";
import type { Executor } from "../../../infra/db/executor.js";
import { type Ctx, transact } from "../../context.js";
import { badRequest, portfolioNotFound, tokenNotFound, UpstreamError } from "../copy-trading.errors.js";
import { type AgentPortfolioRow, agentPortfoliosRepository, type UserTokenRow } from "./agent-portfolios.repository.js";

export const AGENT_PORTFOLIO_READ = ["agent-portfolio:read", "agent-portfolio:write"] as const;
export const AGENT_PORTFOLIO_WRITE = ["agent-portfolio:write"] as const;

/** Upstream's scope ids of v1 (deprecated) and the scopes they stand for. */
export const SCOPE_IDS: Record<number, string> = {
  200: "real:read",
  201: "demo:read",
  202: "real:write",
  203: "demo:write",
};
/** The scope names v2 may give a user token (GetAllowedScopesResponse). */
export const ALLOWED_SCOPE_NAMES = ["trade.real:read", "trade.real:write", "trade.demo:read", "trade.demo:write"];

/** The scopes a request names: ids (v1), names (v1 or v2), or none. */
export interface ScopeChoice {
  scopeIds?: number[] | undefined;
  scopeNames?: string[] | undefined;
}

export interface TokenTerms extends ScopeChoice {
  ipsWhitelist?: string[] | undefined;
  expiresAt?: string | undefined;
}

/** What the create answers show once: the secret. */
export interface IssuedToken {
  row: UserTokenRow;
  userToken: string;
}

/**
 * The bare scopes a request grants, or null when it names none. Names outside the allowed set are
 * `ScopeNameNotAllowed` with `nameStatus` (400 when creating a portfolio, 403 on the token
 * operations, as upstream documents); ids outside 200–203 are `ScopeIdNotAllowed` (400).
 */
export function scopesOf(choice: ScopeChoice, prefix: string, nameStatus: 400 | 403): string[] | null {
  if (choice.scopeNames && choice.scopeNames.length > 0) {
    const scopes = choice.scopeNames.map((name) => normalizeScope(name, prefix));
    if (scopes.some((s) => s === null || !ALLOWED_SCOPE_NAMES.includes(s))) {
      throw new UpstreamError(nameStatus, "ScopeNameNotAllowed", "Scope name not allowed");
    }
    return [...new Set(scopes as string[])];
  }
  if (choice.scopeIds && choice.scopeIds.length > 0) {
    const scopes = choice.scopeIds.map((id) => SCOPE_IDS[id]);
    if (scopes.some((s) => s === undefined)) {
      throw badRequest("ScopeIdNotAllowed", "ScopeIds contains values not in the allowed set");
    }
    return [...new Set(scopes as string[])];
  }
  return null;
}

export function checkIps(ips: readonly string[] | undefined): void {
  if (ips?.some((ip) => !isIPv4(ip))) {
    throw badRequest("IpsWhitelistInvalidIp", "IpsWhitelist contains an invalid IPv4 address");
  }
}

export function checkExpiry(ctx: Ctx, expiresAt: string | undefined): string | null {
  if (expiresAt === undefined) return null;
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) throw badRequest("ValidationFailed", "expiresAt must be a date-time");
  if (at <= ctx.clock.now().getTime()) throw badRequest("ValidationFailed", "expiresAt must be in the future");
  return new Date(at).toISOString();
}

export function checkTokenName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 64) {
    throw badRequest("ValidationFailed", "userTokenName must be 1 to 64 characters");
  }
  return trimmed;
}

export const checkPortfolioId = (id: string) => {
  if (!isUuid(id)) throw badRequest("ValidationFailed", "Invalid agent-portfolio ID");
};

/**
 * Makes a user token of `portfolio`'s account, inside `trx`: a key pair of the agent's user bound
 * to the caller's application key (the x-api-key it was called with), so that the application
 * trades the agent's account with it, within `scopes` (decision 0144). The caller has checked the
 * terms; null when the caller has no application key (a bearer token).
 */
export async function issueToken(
  ctx: Ctx,
  trx: Executor,
  caller: UserActor,
  portfolio: AgentPortfolioRow,
  terms: { name: string; scopes: string[]; ipsWhitelist: string[]; expiresAt: string | null },
): Promise<IssuedToken | null> {
  if (caller.via !== "key-pair") return null;
  const repo = agentPortfoliosRepository(trx);
  const callerKey = await repo.findCallerKey(caller.credentialId);
  if (!callerKey) return null;
  const tokens = await repo.tokensOf([portfolio.id]);
  if (tokens.some((t) => t.name === terms.name)) {
    throw new UpstreamError(409, "UserKeyNameAlreadyExists", "UserKeyName already exists");
  }
  if (tokens.length >= ctx.config.copyTrading.maxUserTokens) {
    throw new UpstreamError(429, "MaxUserTokensExceeded", "Maximum number of user tokens exceeded");
  }
  const userToken = newSecret("sta_uk");
  const row: UserTokenRow = {
    id: newId(),
    userId: portfolio.agentUserId,
    appName: callerKey.appName,
    apiKeyHash: callerKey.apiKeyHash,
    userKeyHash: hashSecret(userToken),
    scopes: JSON.stringify(terms.scopes),
    environment: "demo",
    createdAt: isoNow(ctx.clock),
    revokedAt: null,
    name: terms.name,
    agentPortfolioId: portfolio.id,
    ipsWhitelist: terms.ipsWhitelist.length > 0 ? JSON.stringify(terms.ipsWhitelist) : null,
    expiresAt: terms.expiresAt,
    clientId: callerKey.id,
  };
  await repo.insertToken(row);
  return { row, userToken };
}

/** The caller's portfolio, or 404. */
async function ownedPortfolio(db: Executor, caller: UserActor, id: string): Promise<AgentPortfolioRow> {
  const portfolio = isUuid(id) ? await agentPortfoliosRepository(db).findOwned(caller.userId, id) : undefined;
  if (!portfolio) throw portfolioNotFound();
  return portfolio;
}

export async function createUserToken(
  ctx: Ctx,
  agentPortfolioId: string,
  input: TokenTerms & { userTokenName: string },
  version: 1 | 2,
): Promise<IssuedToken> {
  const caller = requireUser(ctx.actor, AGENT_PORTFOLIO_WRITE);
  checkPortfolioId(agentPortfolioId);
  const scopes = scopesOf(input, ctx.config.scopePrefix, 403);
  if (!scopes) {
    throw badRequest("ScopeIdsRequired", version === 1 ? "ScopeIds is required" : "ScopeNames is required");
  }
  checkIps(input.ipsWhitelist);
  const expiresAt = checkExpiry(ctx, input.expiresAt);
  const name = checkTokenName(input.userTokenName);
  return transact(ctx, async (trx) => {
    const portfolio = await ownedPortfolio(trx, caller, agentPortfolioId);
    const issued = await issueToken(ctx, trx, caller, portfolio, {
      name,
      scopes,
      ipsWhitelist: input.ipsWhitelist ?? [],
      expiresAt,
    });
    if (!issued) {
      throw badRequest(
        "ValidationFailed",
        "A user token is bound to the calling application's key: call with the x-api-key / x-user-key pair",
      );
    }
    return issued;
  });
}

export async function updateUserToken(
  ctx: Ctx,
  agentPortfolioId: string,
  userTokenId: string,
  input: TokenTerms,
): Promise<void> {
  const caller = requireUser(ctx.actor, AGENT_PORTFOLIO_WRITE);
  if (!isUuid(agentPortfolioId) || !isUuid(userTokenId)) {
    throw badRequest("ValidationFailed", "Invalid agent-portfolio ID or user token ID");
  }
  const named = (input.scopeIds?.length ?? 0) > 0 || (input.scopeNames?.length ?? 0) > 0;
  if (!named && input.ipsWhitelist === undefined && input.expiresAt === undefined) {
    throw badRequest("NoChangesDetected", "At least one field must be provided");
  }
  const scopes = scopesOf(input, ctx.config.scopePrefix, 403);
  checkIps(input.ipsWhitelist);
  const expiresAt = checkExpiry(ctx, input.expiresAt);
  await transact(ctx, async (trx, record) => {
    const portfolio = await ownedPortfolio(trx, caller, agentPortfolioId);
    const repo = agentPortfoliosRepository(trx);
    const token = (await repo.tokensOf([portfolio.id])).find((t) => t.id === userTokenId);
    if (!token) throw tokenNotFound();
    await repo.updateToken(userTokenId, {
      ...(scopes ? { scopes: JSON.stringify(scopes) } : {}),
      ...(input.ipsWhitelist !== undefined
        ? { ipsWhitelist: input.ipsWhitelist.length > 0 ? JSON.stringify(input.ipsWhitelist) : null }
        : {}),
      ...(input.expiresAt !== undefined ? { expiresAt } : {}),
    });
    // Every instance forgets the token's cached terms at once (the key pairs' own event).
    record({ type: "KeyPairRevoked", keyPairId: userTokenId, userId: token.userId, occurredAt: isoNow(ctx.clock) });
  });
}

export async function deleteUserToken(ctx: Ctx, agentPortfolioId: string, userTokenId: string): Promise<void> {
  const caller = requireUser(ctx.actor, AGENT_PORTFOLIO_WRITE);
  if (!isUuid(agentPortfolioId) || !isUuid(userTokenId)) {
    throw badRequest("ValidationFailed", "Invalid agent-portfolio ID or user token ID");
  }
  await transact(ctx, async (trx, record) => {
    const portfolio = await ownedPortfolio(trx, caller, agentPortfolioId);
    const repo = agentPortfoliosRepository(trx);
    const token = (await repo.tokensOf([portfolio.id])).find((t) => t.id === userTokenId);
    if (!token) throw tokenNotFound();
    const at = isoNow(ctx.clock);
    if (await repo.revokeToken(userTokenId, at)) {
      record({ type: "KeyPairRevoked", keyPairId: userTokenId, userId: token.userId, occurredAt: at });
    }
  });
}

/** The scope names a v2 token may be given, as a client names them (prefixed). */
export function allowedScopes(ctx: Ctx): { name: string }[] {
  requireUser(ctx.actor, AGENT_PORTFOLIO_READ);
  return ALLOWED_SCOPE_NAMES.map((s) => ({ name: withPrefix(s, ctx.config.scopePrefix) }));
}
