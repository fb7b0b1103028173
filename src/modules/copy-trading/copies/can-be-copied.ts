import type { UserRow } from "../../identity/user-ref.js";

/**
 * Whether `user` may be copied: THE one rule (decision 0147). For now a user whose profile is not
 * private; an explicit allow-copy setting replaces this body when it exists.
 */
export function canBeCopied(user: Pick<UserRow, "isPrivate">): boolean {
  return user.isPrivate !== 1;
}
