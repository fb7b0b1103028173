import type { Static } from "typebox";
import type { UserProfile, UserRecord } from "../../identity/user-profiles.js";
import type { MarketView } from "../../market/market.view.js";
import type { CommentRow, LikeRow, PollOptionRow, PollRow, PostRow } from "./social.rows.js";
import type {
  Attachment,
  AttachmentAlt,
  CommentItem,
  Discussion,
  DiscussionAlt,
  Emotion,
  FeedPage,
  FeedPageAlt,
  PollMetadata,
  Post,
  PostAlt,
  Reactions,
  TradeMetadata,
} from "./social.schemas.js";

/*
 * Wire shapes are the Static types of the schemas in social.schemas.ts: written once, there.
 * Attachments come in two forms; the spec names the alternate one per operation.
 */

export type AttachmentView = Static<typeof Attachment>;
export type AttachmentAltView = Static<typeof AttachmentAlt>;
/** Which attachment form a response uses. */
export type AttachmentForm = "request" | "alt";
export type PollView = Static<typeof PollMetadata>;
export type TradeView = Static<typeof TradeMetadata>;
export type PostView = Static<typeof Post>;
export type PostAltView = Static<typeof PostAlt>;
export type PostOf<F extends AttachmentForm> = F extends "alt" ? PostAltView : PostView;
export type EditStatus = PostView["editStatus"];
export type EmotionView = Static<typeof Emotion>;
export type ReactionsView = Static<typeof Reactions>;
/** The schema leaves the reply preview open (`Any`): its items are comment items (with no replies). */
export type CommentItemView = Omit<Static<typeof CommentItem>, "replies"> & { replies: CommentItemView[] };
export type DiscussionView = Static<typeof Discussion>;
export type DiscussionAltView = Static<typeof DiscussionAlt>;
/** A list of discussions is in one form: all request form or all alternate. */
export type DiscussionsOf<F extends AttachmentForm> = F extends "alt" ? DiscussionAltView[] : DiscussionView[];
export type ReasonView = NonNullable<DiscussionView["reason"]>;
export type FeedPageOf<F extends AttachmentForm> = F extends "alt"
  ? Static<typeof FeedPageAlt>
  : Static<typeof FeedPage>;
export type FeedPageView = FeedPageOf<AttachmentForm>;

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

/** The profiles an answer shows, and which of their users block the requester. */
export interface Profiles {
  users: ReadonlyMap<string, Pick<UserRecord, "profile">>;
  blockedBy: ReadonlySet<string>;
}

export function profileOf(b: Profiles, userId: string): UserProfile {
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

const mentionsOf = (b: Profiles & Pick<Bundle, "mentions">, entityId: string) =>
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

/** A Post with its attachments in the form `attach` makes; a share carries its shared and origin posts. */
interface PostShape<A> extends Omit<PostView, "attachments" | "metadata"> {
  attachments: A[];
  metadata: {
    share?: { sharedPost: PostShape<A>; sharedOriginPost: PostShape<A> };
    poll?: PollView;
    trade?: TradeView;
  };
}

/** A Trade post's trade as stored (publish-trade.ts), with its instrument's market as tagged. */
function tradeOf(b: Bundle, row: PostRow): TradeView | undefined {
  if (row.type !== "Trade" || !row.trade) return undefined;
  const { instrumentId, ...trade } = JSON.parse(row.trade) as Omit<TradeView, "market"> & { instrumentId: number };
  const market = b.markets.get(instrumentId);
  return market ? { ...trade, market } : undefined;
}

function postView<A>(row: PostRow, b: Bundle, attach: (a: AttachmentView) => A, nested = false): PostShape<A> {
  const attachments = row.isDeleted ? [] : parseAttachments(row.attachments);
  const metadata: PostShape<A>["metadata"] = {};
  const poll = pollOf(b, row.id);
  if (poll) metadata.poll = poll;
  const trade = row.isDeleted ? undefined : tradeOf(b, row);
  if (trade) metadata.trade = trade;
  if (!nested && row.type === "Share" && row.sharedPostId && row.sharedOriginPostId) {
    const shared = b.posts.get(row.sharedPostId);
    const origin = b.posts.get(row.sharedOriginPostId);
    if (shared && origin) {
      metadata.share = {
        sharedPost: postView(shared, b, attach, true),
        sharedOriginPost: postView(origin, b, attach, true),
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
    type: row.type as PostView["type"],
    isDeleted: row.isDeleted === 1,
    isSpam: row.isSpam === 1,
    editStatus: row.editStatus as EditStatus,
    attachments: attachments.map(attach),
    tags: row.isDeleted ? [] : tagsOf(b, row.id),
    mentions: row.isDeleted ? [] : mentionsOf(b, row.id),
    metadata,
  };
}

export function toPostView<F extends AttachmentForm>(row: PostRow, b: Bundle, form: F): PostOf<F> {
  const post: PostView | PostAltView =
    form === "alt"
      ? (postView(row, b, toAltAttachment) satisfies PostAltView)
      : (postView(row, b, (a) => a) satisfies PostView);
  return post as PostOf<F>;
}

export const emotionsLink = (entityId: string, offset: number, take: number) =>
  `/api/v1/reactions/${entityId}/emotions?offset=${offset}&take=${take}`;

export function toEmotion(like: LikeRow, b: Profiles, parentSeq: number | undefined): EmotionView {
  return emotionOf(like, profileOf(b, like.userId), parentSeq);
}

/** A like as previews show it, by `owner`. */
export function emotionOf(like: LikeRow, owner: UserProfile, parentSeq: number | undefined): EmotionView {
  return {
    type: "Like",
    id: like.id,
    owner,
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
  b: Profiles,
  parentSeq: number | undefined,
): ReactionsView {
  return reactionsOf(
    entityId,
    total,
    likes.map((l) => toEmotion(l, b, parentSeq)),
    take,
    offset,
  );
}

/** A page of reactions from its emotions (the likes `offset`… of `total`, newest first). */
function reactionsOf(
  entityId: string,
  total: number,
  emotions: EmotionView[],
  take: number,
  offset: number,
): ReactionsView {
  const paging = reactionsPaging(entityId, total, offset + emotions.length, emotions.at(-1)?.id ?? "", take);
  return { like: { paging, emotions } };
}

/** The paging of reactions `shown` so far (the last of them `lastId`) out of `total`. */
export const reactionsPaging = (entityId: string, total: number, shown: number, lastId: string, take: number) => ({
  totalCount: total,
  offsetEntityId: lastId,
  next: shown < total ? emotionsLink(entityId, shown, take) : "",
});

export function toCommentItem(
  row: CommentRow,
  b: Profiles & Pick<Bundle, "mentions">,
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

/**
 * The item of a comment just written, without mentions, before anyone could reply to it or like
 * it: what a read would show, built from the row and its owner's profile alone (decisions 0198,
 * 0199). `requesterId`: whose answer it is (null: the shared document's).
 */
export function newCommentItem(
  row: CommentRow,
  owner: UserProfile,
  at: { postSeq: number; parentSeq: number | undefined },
  reactionsTake: number,
  requesterId: string | null,
): CommentItemView {
  const profiles = {
    users: new Map([[row.ownerId, { profile: owner }]]),
    blockedBy: new Set<string>(),
    mentions: new Map(),
  };
  return toCommentItem(row, profiles, {
    ...at,
    repliesCount: 0,
    likeTotal: 0,
    likes: [],
    reactionsTake,
    isLiking: false,
    requesterId,
  });
}

export const FEED_VERSION = "v1";

/** A page of a feed, in the attachment form of its discussions. */
export function toFeedPage<F extends AttachmentForm>(
  discussions: DiscussionsOf<F>,
  paging: { next: string; offSet: number; take: number },
  stream: string,
): FeedPageOf<F> {
  // Paging and metadata are checked against the schema here; the discussions are already of the
  // page's form (DiscussionsOf<F>), which TypeScript cannot carry from F to the page's type.
  const page = {
    discussions: discussions as DiscussionView[],
    paging: { ...paging, version: FEED_VERSION },
    metadata: { experimentName: "", streamType: stream, designatedStreamType: stream },
  } satisfies Static<typeof FeedPage>;
  return page as FeedPageOf<F>;
}
