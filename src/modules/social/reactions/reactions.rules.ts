import { requireOwner } from "../shared/access.js";

/** The marks a user puts on a post: a like (a reaction, counted and listed) or a save, pin or follow. */
export type Mark = "like" | "save" | "pin" | "follow";

/** Where each mark but a like is kept (likes are in `likes`, with the likes of comments). */
export const MARK_TABLE = { save: "saves", pin: "pins", follow: "postFollows" } as const;

/** Pins are for the caller's own posts (their profile). */
export function requireMarkable(mark: Mark, ownerId: string, userId: string): void {
  if (mark === "pin") requireOwner(ownerId, userId, "post (only your own posts can be pinned)");
}
