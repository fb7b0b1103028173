import { requireSystem } from "../../core/access.js";
import { actorLabel } from "../../core/audit.js";
import { isoNow } from "../../core/clock.js";
import { type Problem, validationFailed } from "../../core/errors.js";
import { hashSecret, newId, newSecret, sameHash } from "../../core/ids.js";
import { recordAudit } from "../audit/record-audit.js";
import { type Ctx, type Deps, transact } from "../context.js";
import { type ClientRow, oauthRepository } from "./oauth.repository.js";
import { OAuthError } from "./oauth-error.js";

export interface CreateClientInput {
  name: string;
  redirectUris: readonly string[];
  /** A public client (SPA, mobile, CLI) has no secret and must use PKCE. */
  isPublic?: boolean | undefined;
  environment?: string | undefined;
}

export interface CreatedClient {
  clientId: string;
  /** Shown once; only its hash is stored. Absent for a public client. */
  clientSecret?: string;
  name: string;
  redirectUris: string[];
  type: "public" | "confidential";
  environment: string;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * A problem with a redirect URI, or null: https anywhere; http only on the loopback host (RFC
 * 8252 §7.3); a private-use scheme with a dot (`com.example.app:/cb`, RFC 8252 §7.1); never a
 * fragment, and never the schemes a browser would run (javascript:, data:...).
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `"${uri}" is not an absolute URI`;
  }
  if (url.hash || uri.includes("#")) return `"${uri}" must not have a fragment`;
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:") {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : `"${uri}": plain http is allowed only on 127.0.0.1, [::1] or localhost`;
  }
  const scheme = url.protocol.slice(0, -1);
  if (!scheme.includes(".")) {
    return `"${uri}": use https, http on the loopback host, or a reverse-domain private scheme like com.example.app:/callback`;
  }
  return null;
}

/**
 * Exact match against a registered URI, except that on a loopback IP literal any port is
 * accepted (RFC 8252 §7.3: native apps listen on a port the OS picks).
 */
export function redirectUriMatches(registered: readonly string[], candidate: string): boolean {
  if (registered.includes(candidate)) return true;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" || !["127.0.0.1", "[::1]"].includes(url.hostname)) return false;
  const withoutPort = (u: URL) => `${u.protocol}//${u.hostname}${u.pathname}${u.search}`;
  return registered.some((r) => {
    try {
      const reg = new URL(r);
      return reg.protocol === "http:" && reg.hostname === url.hostname && withoutPort(reg) === withoutPort(url);
    } catch {
      return false;
    }
  });
}

export async function createClient(ctx: Ctx, input: CreateClientInput): Promise<CreatedClient> {
  requireSystem(ctx.actor);
  const problems: Problem[] = [];
  const name = input.name.trim();
  if (name.length < 1 || name.length > 80) problems.push({ field: "name", problem: "must be 1 to 80 characters" });
  if (input.redirectUris.length === 0) problems.push({ field: "redirectUris", problem: "must hold at least one URI" });
  for (const [i, uri] of input.redirectUris.entries()) {
    const problem = redirectUriProblem(uri);
    if (problem) problems.push({ field: `redirectUris[${i}]`, problem: `is refused (${problem})` });
  }
  const environment = (input.environment ?? "demo").toLowerCase();
  if (environment !== "demo" && environment !== "real") {
    problems.push({ field: "environment", problem: `must be demo or real (got "${input.environment}")` });
  }
  if (problems.length > 0) throw validationFailed(problems);

  const clientId = `sta_client_${newId().replaceAll("-", "")}`;
  const clientSecret = input.isPublic ? undefined : newSecret("sta_cs");
  const redirectUris = [...new Set(input.redirectUris)];
  await transact(ctx, async (trx) => {
    await oauthRepository(trx).insertClient({
      id: clientId,
      name,
      secretHash: clientSecret ? hashSecret(clientSecret) : null,
      redirectUris: JSON.stringify(redirectUris),
      environment,
      createdAt: isoNow(ctx.clock),
      revokedAt: null,
    });
    const details = { clientId, name, type: clientSecret ? "confidential" : "public", environment };
    await recordAudit(
      ctx,
      { action: "oauth-client.created", outcome: "success", actor: actorLabel(ctx.actor), details },
      trx,
    );
  });
  return {
    clientId,
    ...(clientSecret ? { clientSecret } : {}),
    name,
    redirectUris,
    type: clientSecret ? "confidential" : "public",
    environment,
  };
}

export interface ClientSummary {
  clientId: string;
  name: string;
  type: "public" | "confidential";
  redirectUris: string[];
  environment: string;
  createdAt: string;
}

export const toClientSummary = (row: ClientRow): ClientSummary => ({
  clientId: row.id,
  name: row.name,
  type: row.secretHash ? "confidential" : "public",
  redirectUris: JSON.parse(row.redirectUris) as string[],
  environment: row.environment,
  createdAt: row.createdAt,
});

export async function listClients(ctx: Ctx): Promise<ClientSummary[]> {
  requireSystem(ctx.actor);
  return (await oauthRepository(ctx.db.kysely).listClients()).map(toClientSummary);
}

/** How a client presented itself at the token or revocation endpoint. */
export interface ClientCredentials {
  clientId: string | undefined;
  clientSecret: string | undefined;
  method: "client_secret_basic" | "client_secret_post" | "none";
}

/**
 * RFC 6749 §2.3: a confidential client proves itself with its secret (Basic or body); a public
 * client names itself with client_id and nothing else. Every failure is `invalid_client`.
 */
export async function authenticateClient(deps: Deps, credentials: ClientCredentials): Promise<ClientRow> {
  if (!credentials.clientId) throw new OAuthError("invalid_client", "Client authentication is required");
  const client = await oauthRepository(deps.db.kysely).findClient(credentials.clientId);
  if (!client || client.revokedAt !== null) throw new OAuthError("invalid_client", "Unknown client");
  if (client.secretHash) {
    if (!credentials.clientSecret || !sameHash(client.secretHash, hashSecret(credentials.clientSecret))) {
      throw new OAuthError("invalid_client", "Client authentication failed");
    }
  } else if (credentials.clientSecret !== undefined) {
    throw new OAuthError("invalid_client", "A public client has no secret; send client_id only");
  }
  return client;
}

export const redirectUrisOf = (client: ClientRow) => JSON.parse(client.redirectUris) as string[];
