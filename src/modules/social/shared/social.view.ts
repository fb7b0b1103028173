import type { UserProfile, UserRecord } from "../../identity/user-profiles.js";
import type { MarketView } from "../../market/market.view.js";
import type { CommentRow, LikeRow, PollOptionRow, PollRow, PostRow } from "./social.rows.js";

/** Attachment, request form: stored as sent (normalised), returned by most operations. */
export type EditStatus = "None" | "Edited" | "Moderated";

export interface AttachmentView {
  url: string;
  title: string;
  host: string;
  description: string;
  mediaType: string;
  media: { image?: { width: number; height: number; url: string } };
}

export interface AttachmentAltView {
  type: string;
  url: string;
  thumbnailUrl: string;
  host: string;
  mediaType: string;
  media: Record<string, unknown>;
  metadata: { width: number; height: number; duration: number };
}

/** Which attachment form a response uses: the spec names the alternate one per operation. */
export type AttachmentForm = "request" | "alt";

export interface PollView {
  id: number;
  title: string;
  gcid: number;
  options: { id: number; index: number; text: string; isUserVoted: boolean; votesCount: number }[];
}

export interface PostView {
  id: string;
  owner: UserProfile;
  obsoleteId: string;
  message: { text: string; languageCode: string };
  created: string;
  updated: string;
  type: string;
  isDeleted: boolean;
  isSpam: boolean;
  editStatus: EditStatus;
  attachments: (AttachmentView | AttachmentAltView)[];
  tags: { market: MarketView }[];
  mentions: { user: UserProfile; isDirect: boolean }[];
  metadata: { share?: { sharedPost: PostView; sharedOriginPost: PostView }; poll?: PollView };
}

export interface EmotionView {
  type: "Like";
  id: string;
  owner: UserProfile;
  obsoleteId: string;
  parent: { id: string; obsoleteId: string; type: string };
  created: string;
}

export interface ReactionsView {
  like: {
    paging: { totalCount: number; offsetEntityId: string; next: string };
    emotions: EmotionView[];
  };
}

export interface CommentItemView {
  entity: {
    id: string;
    owner: UserProfile;
    obsoleteId: string;
    created: string;
    updated: string;
    message: { text: string; languageCode: string };
    attachments: AttachmentView[];
    mentions: { user: UserProfile; isDirect: boolean }[];
    tags: { market: MarketView }[];
    isSpam: boolean;
    editStatus: EditStatus;
    parent: { id: string; obsoleteId: string; type: string };
  };
  repliesCount: number;
  /** Top-level comments: a preview of their first replies (assemble.ts); replies: always empty. */
  replies: CommentItemView[];
  emotionsData: ReactionsView;
  requesterContext: { isOwner: boolean; isLiking: boolean; isFlaggingAsSpam: boolean };
}

export interface RequesterContextView {
  isOwner: boolean;
  isFlaggingAsSpam: boolean;
  isSubscribed: boolean;
  isLiking: boolean;
  isSaved: boolean;
  isPinned: boolean;
  isRequesterBlocking: boolean;
  isInteractionRestricted: boolean;
  isFollowing: boolean;
}

export interface ReasonView {
  type: "followed-user" | "instrument-trending";
  sourceId: string;
  owner: string;
}

export interface DiscussionView {
  id: string;
  post: PostView;
  commentsData: { reactionPaging: { totalCount: number }; comments: CommentItemView[] };
  emotionsData: ReactionsView;
  requesterContext: RequesterContextView;
  summary: { totalCommentsAndReplies: number; sharedCount: number };
  reason?: ReasonView | null;
}

export interface FeedPageView {
  discussions: DiscussionView[];
  paging: { next: string; offSet: number; take: number; version: string };
  metadata: { experimentName: string; streamType: string; designatedStreamType: string };
}

/** Everything a set of posts refers to, loaded in a bounded number of queries (assemble.ts). */
export interface Bundle {
  users: Map<string, UserRecord>;
  /** Users who block the requester: their profiles say `isBlocked`. */
  blockedBy: Set<string>;
  /** Users the requester blocks. */
  blocking: Set<string>;
  markets: Map<number, MarketView>;
  tags: Map<string, number[]>;
  mentions: Map<string, { userId: string; isDirect: boolean }[]>;
  polls: Map<string, { poll: PollRow; options: PollOptionRow[] }>;
  voteCounts: Map<number, number>;
  myVotes: Set<number>;
  /** Posts referred to by shares. */
  posts: Map<string, PostRow>;
}

const DELETED_USER: UserProfile = {
  id: "0",
  username: "",
  firstName: "",
  lastName: "",
  avatar: { small: "", medium: "", large: "", svg: { url: "", backgroundColor: "", textColor: "" } },
  roles: [],
  isBlocked: false,
  isPrivate: true,
  countryCode: 0,
  piLevel: 0,
};

export function profileOf(b: Pick<Bundle, "users" | "blockedBy">, userId: string): UserProfile {
  const record = b.users.get(userId);
  if (!record) return DELETED_USER;
  return b.blockedBy.has(userId) ? { ...record.profile, isBlocked: true } : record.profile;
}

export function parseAttachments(json: string): AttachmentView[] {
  return JSON.parse(json) as AttachmentView[];
}

export function toAltAttachment(a: AttachmentView): AttachmentAltView {
  const image = a.media.image;
  return {
    type: a.mediaType.toLowerCase(),
    url: a.url,
    thumbnailUrl: image?.url ?? a.url,
    host: a.host,
    mediaType: a.mediaType,
    media: a.media,
    metadata: { width: image?.width ?? 0, height: image?.height ?? 0, duration: 0 },
  };
}

const mentionsOf = (b: Bundle, entityId: string) =>
  (b.mentions.get(entityId) ?? []).map((m) => ({ user: profileOf(b, m.userId), isDirect: m.isDirect }));

const tagsOf = (b: Bundle, postId: string) =>
  (b.tags.get(postId) ?? []).flatMap((id) => {
    const market = b.markets.get(id);
    return market ? [{ market }] : [];
  });

function pollOf(b: Bundle, postId: string): PollView | undefined {
  const entry = b.polls.get(postId);
  if (!entry) return undefined;
  const owner = b.users.get(b.posts.get(postId)?.ownerId ?? "");
  return {
    id: entry.poll.id,
    title: entry.poll.title,
    gcid: owner?.gcid ?? 0,
    options: entry.options.map((o) => ({
      id: o.id,
      index: o.idx,
      text: o.text,
      isUserVoted: b.myVotes.has(o.id),
      votesCount: b.voteCounts.get(o.id) ?? 0,
    })),
  };
}

export function toPostView(row: PostRow, b: Bundle, form: AttachmentForm, nested = false): PostView {
  const attachments = row.isDeleted ? [] : parseAttachments(row.attachments);
  const metadata: PostView["metadata"] = {};
  const poll = pollOf(b, row.id);
  if (poll) metadata.poll = poll;
  if (!nested && row.type === "Share" && row.sharedPostId && row.sharedOriginPostId) {
    const shared = b.posts.get(row.sharedPostId);
    const origin = b.posts.get(row.sharedOriginPostId);
    if (shared && origin) {
      metadata.share = {
        sharedPost: toPostView(shared, b, form, true),
        sharedOriginPost: toPostView(origin, b, form, true),
      };
    }
  }
  return {
    id: row.id,
    owner: profileOf(b, row.ownerId),
    obsoleteId: String(row.seq),
    // A deleted post still answers by id (isDeleted), but its content is gone.
    message: { text: row.isDeleted ? "" : row.text, languageCode: row.languageCode },
    created: row.createdAt,
    updated: row.updatedAt,
    type: row.type,
    isDeleted: row.isDeleted === 1,
    isSpam: row.isSpam === 1,
    editStatus: row.editStatus as EditStatus,
    attachments: form === "alt" ? attachments.map(toAltAttachment) : attachments,
    tags: row.isDeleted ? [] : tagsOf(b, row.id),
    mentions: row.isDeleted ? [] : mentionsOf(b, row.id),
    metadata,
  };
}

export const emotionsLink = (entityId: string, offset: number, take: number) =>
  `/api/v1/reactions/${entityId}/emotions?offset=${offset}&take=${take}`;

export function toEmotion(
  like: LikeRow,
  b: Pick<Bundle, "users" | "blockedBy">,
  parentSeq: number | undefined,
): EmotionView {
  return {
    type: "Like",
    id: like.id,
    owner: profileOf(b, like.userId),
    obsoleteId: String(like.seq),
    parent: { id: like.entityId, obsoleteId: parentSeq === undefined ? "" : String(parentSeq), type: like.entityType },
    created: like.createdAt,
  };
}

/** The first page of reactions: `take` emotions, and a link to the next page when there is one. */
export function toReactions(
  entityId: string,
  total: number,
  likes: LikeRow[],
  take: number,
  offset: number,
  b: Pick<Bundle, "users" | "blockedBy">,
  parentSeq: number | undefined,
): ReactionsView {
  const shown = offset + likes.length;
  return {
    like: {
      paging: {
        totalCount: total,
        offsetEntityId: likes.at(-1)?.id ?? "",
        next: shown < total ? emotionsLink(entityId, shown, take) : "",
      },
      emotions: likes.map((l) => toEmotion(l, b, parentSeq)),
    },
  };
}

export function toCommentItem(
  row: CommentRow,
  b: Bundle,
  extra: {
    postSeq: number;
    parentSeq: number | undefined;
    repliesCount: number;
    likeTotal: number;
    likes: LikeRow[];
    reactionsTake: number;
    isLiking: boolean;
    requesterId: string | null;
  },
): CommentItemView {
  const isReply = row.parentId !== null;
  return {
    entity: {
      id: row.id,
      owner: profileOf(b, row.ownerId),
      obsoleteId: String(row.seq),
      created: row.createdAt,
      updated: row.updatedAt,
      message: { text: row.text, languageCode: row.languageCode },
      attachments: parseAttachments(row.attachments),
      mentions: mentionsOf(b, row.id),
      tags: [],
      isSpam: row.isSpam === 1,
      editStatus: row.editStatus as EditStatus,
      parent: isReply
        ? {
            id: row.parentId!,
            obsoleteId: extra.parentSeq === undefined ? "" : String(extra.parentSeq),
            type: "Comment",
          }
        : { id: row.postId, obsoleteId: String(extra.postSeq), type: "Post" },
    },
    repliesCount: extra.repliesCount,
    replies: [],
    emotionsData: toReactions(row.id, extra.likeTotal, extra.likes, extra.reactionsTake, 0, b, row.seq),
    requesterContext: {
      isOwner: extra.requesterId === row.ownerId,
      isLiking: extra.isLiking,
      isFlaggingAsSpam: false,
    },
  };
}

export const FEED_VERSION = "v1";
