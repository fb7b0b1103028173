import { requireSystem } from "../../core/access.js";
import type { Environment } from "../../core/actor.js";
import { actorLabel } from "../../core/audit.js";
import { isoNow } from "../../core/clock.js";
import { AppError } from "../../core/errors.js";
import { hashSecret, newId, newSecret } from "../../core/ids.js";
import { normalizeScope, OPERATOR_SCOPE, withPrefix } from "../../core/scopes.js";
import { recordAudit } from "../audit/record-audit.js";
import { type Ctx, transact } from "../context.js";
import { identityRepository, type KeyPairRow } from "./identity.repository.js";
import { resolveUser } from "./user-ref.js";

export interface CreateKeyPairInput {
  user: string;
  scopes: readonly string[];
  environment?: string | undefined;
  appName?: string | undefined;
  /**
   * The operator's key pair (docs/decisions/0149): it also holds OPERATOR_SCOPE, which `scopes`
   * can never name. Only the CLI's `sandbox operator-key` (and tests) set it.
   */
  operator?: boolean | undefined;
}

/** The secrets appear here once; only their hashes are stored. */
export interface IssuedKeyPair {
  id: string;
  apiKey: string;
  userKey: string;
  scopes: string[];
  environment: Environment;
  userId: string;
  username: string;
  appName: string;
}

export interface KeyPairSummary {
  id: string;
  appName: string;
  scopes: string[];
  environment: string;
  createdAt: string;
  revokedAt: string | null;
}

export function parseScopes(raw: readonly string[], prefix: string): string[] {
  const parts = raw
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (parts.length === 0) throw new AppError("ValidationFailed", "At least one scope is required");
  const unknown = parts.filter((s) => normalizeScope(s, prefix) === null);
  if (unknown.length > 0) {
    throw new AppError(
      "ValidationFailed",
      `Unknown scope${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`,
      unknown.map((s) => ({ field: "scopes", problem: `names an unknown scope "${s}"` })),
    );
  }
  return [...new Set(parts.map((s) => normalizeScope(s, prefix) as string))];
}

export async function createKeyPair(ctx: Ctx, input: CreateKeyPairInput): Promise<IssuedKeyPair> {
  requireSystem(ctx.actor);
  const environment = (input.environment ?? "demo").toLowerCase();
  if (environment !== "demo" && environment !== "real") {
    throw new AppError("ValidationFailed", `environment must be demo or real (got "${input.environment}")`);
  }
  const scopes = input.operator
    ? [...(input.scopes.length > 0 ? parseScopes(input.scopes, ctx.config.scopePrefix) : []), OPERATOR_SCOPE]
    : parseScopes(input.scopes, ctx.config.scopePrefix);
  const appName = input.appName?.trim() || "sandbox";
  const user = await resolveUser(ctx.db.kysely, input.user);
  const apiKey = newSecret("sta_ak");
  const userKey = newSecret("sta_uk");
  const id = newId();
  await transact(ctx, async (trx) => {
    await identityRepository(trx).insertKeyPair({
      id,
      userId: user.id,
      appName,
      apiKeyHash: hashSecret(apiKey),
      userKeyHash: hashSecret(userKey),
      scopes: JSON.stringify(scopes),
      environment,
      createdAt: isoNow(ctx.clock),
      revokedAt: null,
    });
    const details = { keyPairId: id, appName, environment, scopes: scopes.join(" ") };
    await recordAudit(
      ctx,
      { action: "key-pair.created", outcome: "success", actor: actorLabel(ctx.actor), userId: user.id, details },
      trx,
    );
  });
  return {
    id,
    apiKey,
    userKey,
    scopes: scopes.map((s) => withPrefix(s, ctx.config.scopePrefix)),
    environment,
    userId: user.id,
    username: user.username,
    appName,
  };
}

const toSummary = (row: KeyPairRow, prefix: string): KeyPairSummary => ({
  id: row.id,
  appName: row.appName,
  scopes: (JSON.parse(row.scopes) as string[]).map((s) => withPrefix(s, prefix)),
  environment: row.environment,
  createdAt: row.createdAt,
  revokedAt: row.revokedAt,
});

export async function listKeyPairs(ctx: Ctx, userRef: string): Promise<KeyPairSummary[]> {
  requireSystem(ctx.actor);
  const user = await resolveUser(ctx.db.kysely, userRef);
  const rows = await identityRepository(ctx.db.kysely).listKeyPairs(user.id);
  return rows.map((r) => toSummary(r, ctx.config.scopePrefix));
}

export async function revokeKeyPair(ctx: Ctx, id: string): Promise<KeyPairSummary> {
  requireSystem(ctx.actor);
  return transact(ctx, async (trx, record) => {
    const repo = identityRepository(trx);
    const existing = await repo.findKeyPair(id);
    if (!existing) throw new AppError("NotFound", `No key pair "${id}"`);
    const at = isoNow(ctx.clock);
    if (await repo.revokeKeyPair(id, at)) {
      record({ type: "KeyPairRevoked", keyPairId: id, userId: existing.userId, occurredAt: at });
      const entry = { action: "key-pair.revoked", outcome: "success", actor: actorLabel(ctx.actor) } as const;
      await recordAudit(ctx, { ...entry, userId: existing.userId, details: { keyPairId: id } }, trx);
    }
    const after = await repo.findKeyPair(id);
    return toSummary(after ?? existing, ctx.config.scopePrefix);
  });
}
