import { requireUser } from "../../../core/access.js";
import type { Actor, UserActor } from "../../../core/actor.js";
import { AppError } from "../../../core/errors.js";
import type { Deps } from "../../context.js";
import { getUserProfiles, type UserRecord } from "../../identity/user-profiles.js";
import { socialRepository } from "./social.repository.js";
import type { PostRow } from "./social.rows.js";

export const READ_SCOPES = ["feed:read"] as const;
export const WRITE_SCOPES = ["feed:write"] as const;

export const requireReader = (actor: Actor): UserActor => requireUser(actor, READ_SCOPES);
export const requireWriter = (actor: Actor): UserActor => requireUser(actor, WRITE_SCOPES);

/** The requester of an optional-auth read: a user id, or null for anonymous callers. */
export function requesterOf(actor: Actor): string | null {
  if (actor.kind === "anonymous") return null;
  return requireReader(actor).userId;
}

export async function actorRecord(deps: Deps, actor: UserActor): Promise<UserRecord> {
  const record = (await getUserProfiles(deps, [actor.userId])).get(actor.userId);
  if (!record) throw new AppError("Unauthorized", "The credential's user no longer exists");
  return record;
}

/**
 * A post the caller may act on: it exists, is not deleted (404 otherwise), is visible to them
 * (404: private or blocked content is not disclosed) and no block stands between them (403).
 */
export async function actionablePost(deps: Deps, postId: string, userId: string): Promise<PostRow> {
  const repo = socialRepository(deps.db.kysely);
  const found = await repo.findPostFor(postId, userId);
  if (!found || found.isDeleted === 1) throw new AppError("NotFound", "The post was not found");
  const { visible, ...post } = found;
  if (!visible) {
    const blocks = await repo.blocksWith(userId, [post.ownerId]);
    if (blocks.blockedBy.has(post.ownerId)) {
      throw new AppError("Forbidden", "The owner of this post restricts your interactions");
    }
    throw new AppError("NotFound", "The post was not found");
  }
  return post;
}

/** Mutating a post or comment is for its owner only. */
export function requireOwner(ownerId: string, userId: string, what: string): void {
  if (ownerId !== userId) throw new AppError("Forbidden", `Only the owner may change this ${what}`);
}
