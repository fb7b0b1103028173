import type { PostCommentAdded, PostLikeAdded, SocialChanged } from "../../../core/events.js";

/** What one social write changed (docs/decisions/0080): recorded in its transaction, published after commit. */
export function socialChanged(
  occurredAt: string,
  changed: {
    postIds?: readonly string[];
    userIds?: readonly string[];
    listings?: boolean;
    /** A new post, and the one change to listings: those that may hold it are redone, no others. */
    listed?: SocialChanged["listed"];
    /** A post's new like, for kept parts to add in place (docs/decisions/0198). */
    like?: PostLikeAdded;
    /** A post's new top-level comment, likewise. */
    comment?: PostCommentAdded;
  },
): SocialChanged {
  return {
    type: "SocialChanged",
    postIds: changed.postIds ?? [],
    userIds: changed.userIds ?? [],
    listings: (changed.listings ?? false) || changed.listed !== undefined,
    ...(changed.listed ? { listed: changed.listed } : {}),
    ...(changed.like ? { like: changed.like } : {}),
    ...(changed.comment ? { comment: changed.comment } : {}),
    occurredAt,
  };
}
