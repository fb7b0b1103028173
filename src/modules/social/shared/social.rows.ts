import type { Selectable } from "kysely";
import type {
  CommentsTable,
  LikesTable,
  MentionsTable,
  PollOptionsTable,
  PollsTable,
  PostsTable,
  PostTagsTable,
} from "../../../infra/db/schema.js";

export type PostRow = Selectable<PostsTable>;
export type CommentRow = Selectable<CommentsTable>;
export type LikeRow = Selectable<LikesTable>;
export type PollRow = Selectable<PollsTable>;
export type PollOptionRow = Selectable<PollOptionsTable>;
export type TagRow = Selectable<PostTagsTable>;
export type MentionRow = Selectable<MentionsTable>;
export type NewPost = Omit<PostRow, "seq" | "trade"> & { trade?: string | null };
export type NewComment = Omit<CommentRow, "seq">;

/** Which posts a feed pages through; each is served by one index (see migration 006). */
export type FeedSource =
  | { kind: "all" }
  | { kind: "owner"; ownerId: string }
  | { kind: "instrument"; instrumentId: number }
  | { kind: "following"; followerId: string }
  | { kind: "saved"; userId: string }
  | { kind: "pinned"; userId: string }
  | { kind: "forYou"; userId: string; instrumentIds: readonly number[] };

export interface PostStats {
  commentsAll: number;
  commentsTop: number;
  shares: number;
  liked: boolean;
  saved: boolean;
  pinned: boolean;
  followed: boolean;
}

export type Ids = readonly string[];

/** A count or 0/1 flag as a database returns it (PostgreSQL: a string for bigint), as a number. */
export const count = (v: unknown) => Number(v ?? 0);
