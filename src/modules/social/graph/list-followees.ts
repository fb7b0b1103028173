import type { Deps } from "../../context.js";
import { followeesRepository } from "./followees.repository.js";

/** The ids of the users `userId` follows. For other modules' reads: recommendations (decision 0137). */
export async function listFollowees(deps: Deps, userId: string): Promise<string[]> {
  return followeesRepository(deps.db.kysely).followeesOf(userId);
}
