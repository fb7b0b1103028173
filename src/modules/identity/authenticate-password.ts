import type { Deps } from "../context.js";
import { identityRepository } from "./identity.repository.js";
import { verifyPassword } from "./passwords.js";

/** A hash of a random password: unknown users cost as much time as known ones. */
const DECOY_HASH = "scrypt$16$8$1$AAAAAAAAAAAAAAAAAAAAAA$JcJ0hhg0sH4d7pqyDzEMhLKqK7D9O6XrZq7XG0zqkkA";

export interface PasswordUser {
  userId: string;
  username: string;
}

/**
 * The sign-in check of the OAuth login page: the user when the username and password match,
 * null otherwise (same answer, and about the same time, for an unknown user and a wrong password).
 */
export async function authenticatePassword(
  deps: Deps,
  username: string,
  password: string,
): Promise<PasswordUser | null> {
  const user = username.trim()
    ? await identityRepository(deps.db.kysely).findUserByUsername(username.trim())
    : undefined;
  const ok = await verifyPassword(password, user?.passwordHash ?? DECOY_HASH);
  return user && ok ? { userId: user.id, username: user.username } : null;
}

/** For the consent page: the signed-in user's name, or null when the user is gone. */
export async function usernameOf(deps: Deps, userId: string): Promise<string | null> {
  return (await identityRepository(deps.db.kysely).findUserById(userId))?.username ?? null;
}

/**
 * The account a username typed on the sign-in page names (matched as sign-in matches it), or null.
 * For the sign-in throttle and the audit trail; it checks nothing.
 */
export async function findAccount(deps: Deps, username: string): Promise<PasswordUser | null> {
  const user = username.trim()
    ? await identityRepository(deps.db.kysely).findUserByUsername(username.trim())
    : undefined;
  return user ? { userId: user.id, username: user.username } : null;
}
