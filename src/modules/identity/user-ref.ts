import { AppError } from "../../core/errors.js";
import { isUuid } from "../../core/ids.js";
import type { Executor } from "../../infra/db/executor.js";
import { identityRepository, type UserRow } from "./identity.repository.js";

/** Operators name a user by id (uuid), gcid (integer) or username; all three work everywhere. */
export async function resolveUser(db: Executor, ref: string): Promise<UserRow> {
  const repo = identityRepository(db);
  const trimmed = ref.trim();
  const user = isUuid(trimmed)
    ? await repo.findUserById(trimmed)
    : /^\d+$/.test(trimmed) && Number(trimmed) <= 2_147_483_647
      ? ((await repo.findUserByGcid(Number(trimmed))) ?? (await repo.findUserByUsername(trimmed)))
      : await repo.findUserByUsername(trimmed);
  if (!user) throw new AppError("NotFound", `No user "${ref}"`);
  return user;
}

export type { UserRow } from "./identity.repository.js";

/** Users by id or username, and a new one (an agent portfolio's account), for other modules' use cases. */
export function usersDirectory(db: Executor) {
  const repo = identityRepository(db);
  return { findUserById: repo.findUserById, findUserByUsername: repo.findUserByUsername, insertUser: repo.insertUser };
}
