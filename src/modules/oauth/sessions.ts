import { randomBytes } from "node:crypto";
import { isoNow } from "../../core/clock.js";
import { hashSecret } from "../../core/ids.js";
import type { Deps } from "../context.js";
import { type PasswordUser, usernameOf } from "../identity/authenticate-password.js";
import { oauthRepository } from "./oauth.repository.js";

/** How long a sign-in on the consent page lasts. */
export const SESSION_TTL_SECONDS = 8 * 3600;

export interface Session {
  userId: string;
  username: string;
  csrfToken: string;
}

export const newCsrfToken = () => randomBytes(24).toString("base64url");

/**
 * Starts a sign-in on the authorization server's own page for a user whose password was checked
 * (src/modules/oauth/sign-in.ts). The session id lives only in an HttpOnly cookie (its hash in the
 * database); the CSRF token of the consent form is bound to it.
 */
export async function startSession(deps: Deps, user: PasswordUser): Promise<{ sessionId: string; session: Session }> {
  const sessionId = randomBytes(32).toString("base64url");
  const now = deps.clock.now();
  const csrfToken = newCsrfToken();
  const repo = oauthRepository(deps.db.kysely);
  await repo.deleteExpiredSessions(now.toISOString());
  await repo.insertSession({
    idHash: hashSecret(sessionId),
    userId: user.userId,
    csrfToken,
    createdAt: isoNow(deps.clock),
    expiresAt: new Date(now.getTime() + SESSION_TTL_SECONDS * 1000).toISOString(),
  });
  return { sessionId, session: { userId: user.userId, username: user.username, csrfToken } };
}

export async function findSession(deps: Deps, sessionId: string | undefined): Promise<Session | null> {
  if (!sessionId) return null;
  const row = await oauthRepository(deps.db.kysely).findSession(hashSecret(sessionId));
  if (!row || row.expiresAt <= isoNow(deps.clock)) return null;
  const username = await usernameOf(deps, row.userId);
  return username ? { userId: row.userId, username, csrfToken: row.csrfToken } : null;
}

export async function signOut(deps: Deps, sessionId: string | undefined): Promise<void> {
  if (sessionId) await oauthRepository(deps.db.kysely).deleteSession(hashSecret(sessionId));
}
