import { type Static, type TProperties, type TSchema, Type } from "typebox";
import { Int32, Int32Id } from "../../../http/schemas.js";
import { serializerOf } from "../../../http/serializers.js";
import { UserProfile } from "../../identity/identity.schemas.js";
import { Market } from "../../market/market.schemas.js";

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

// ---------------------------------------------------------------- shared resources

const MediaImage = Type.Object({ width: Type.Integer(), height: Type.Integer(), url: Type.String() });

/** Attachment, request form: what clients send, and what most responses return. */
export const AttachmentIn = Type.Object(
  {
    url: Type.String({ maxLength: 2048, description: "An http(s) URL" }),
    title: Type.Optional(Type.String({ maxLength: 300 })),
    host: Type.Optional(Type.String({ maxLength: 255 })),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    mediaType: Type.Optional(
      Type.Union([Type.Literal("None"), Type.Literal("Link"), Type.Literal("Image")], { default: "None" }),
    ),
    media: Type.Optional(
      Type.Object({
        image: Type.Optional(
          Type.Object({
            width: Type.Integer({ minimum: 0, maximum: 100_000 }),
            height: Type.Integer({ minimum: 0, maximum: 100_000 }),
            url: Type.String({ maxLength: 2048 }),
          }),
        ),
      }),
    ),
  },
  { description: "Attachment (request form)" },
);

export const Attachment = Type.Object(
  {
    url: Type.String(),
    title: Type.String(),
    host: Type.String(),
    description: Type.String(),
    mediaType: Type.String({ description: "`None`, `Link` or `Image`" }),
    media: Type.Object({
      image: Type.Optional(MediaImage),
      video: Type.Optional(
        Type.Object({ videoSourceId: Type.String(), videoSource: Type.String(), image: Type.Optional(MediaImage) }),
      ),
    }),
  },
  { description: "Attachment (request form, as returned)" },
);

export const AttachmentAlt = Type.Object(
  {
    type: Type.String({ description: "`image`, `link` or `none`" }),
    url: Type.String(),
    thumbnailUrl: Type.String(),
    host: Type.String(),
    mediaType: Type.String(),
    media: Type.Object({}, { additionalProperties: true }),
    metadata: Type.Object({ width: Type.Number(), height: Type.Number(), duration: Type.Number() }),
  },
  { description: "Attachment (alternate response form)" },
);

const Message = Type.Object({ text: Type.String(), languageCode: Type.String() });
const TagEntry = Type.Object({ market: Market });
const MentionEntry = Type.Object({ user: UserProfile, isDirect: Type.Boolean() });
const EditStatus = Type.Union([Type.Literal("None"), Type.Literal("Edited"), Type.Literal("Moderated")]);
const PostType = Type.Union([
  Type.Literal("Default"),
  Type.Literal("Share"),
  Type.Literal("MarketEvent"),
  Type.Literal("Trade"),
  Type.Literal("Order"),
  Type.Literal("Copy"),
  Type.Literal("Poll"),
  Type.Literal("Article"),
]);

/** A Trade post's trade (upstream's `metadata.trade`; decision 0175). */
export const TradeMetadata = Type.Object({
  type: Type.Union([Type.Literal("Open"), Type.Literal("Close")], { description: "Trade lifecycle stage" }),
  positionId: Type.Integer({ description: "The demo position's id" }),
  market: Market,
  gain: Type.Number({ description: "A close's net P/L in percent of the amount it closed; 0 on an open" }),
  rate: Type.Number({ description: "The open's or the close's rate" }),
  direction: Type.Union([Type.Literal("Long"), Type.Literal("Short")]),
});

export const PollMetadata = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  gcid: Type.Integer({ description: "The poll owner's gcid" }),
  options: Type.Array(
    Type.Object({
      id: Type.Integer(),
      index: Type.Integer({ minimum: 1 }),
      text: Type.String(),
      isUserVoted: Type.Boolean(),
      votesCount: Type.Integer(),
    }),
  ),
});

/** A Post's properties in one attachment form, with `share` only on the outer post (see below). */
function postSchema<A extends TSchema, T extends TSchema, S extends TProperties>(
  attachment: A,
  type: T,
  share: S,
  description: string,
) {
  return Type.Object(
    {
      id: Type.String({ format: "uuid" }),
      owner: UserProfile,
      obsoleteId: Type.String({ description: "Legacy numeric id, as text" }),
      message: Message,
      created: Type.String({ format: "date-time" }),
      updated: Type.String({ format: "date-time" }),
      type,
      isDeleted: Type.Boolean(),
      isSpam: Type.Boolean(),
      editStatus: EditStatus,
      attachments: Type.Array(attachment),
      tags: Type.Array(TagEntry),
      mentions: Type.Array(MentionEntry),
      metadata: Type.Object({ ...share, poll: Type.Optional(PollMetadata), trade: Type.Optional(TradeMetadata) }),
    },
    { description },
  );
}

/** A Post in one of its two forms; shared posts nest one level deep (their own `share` is omitted). */
function postForms<A extends TSchema, T extends TSchema>(attachment: A, type: T, description: string) {
  const nested = postSchema(attachment, type, {}, description);
  const share = Type.Optional(Type.Object({ sharedPost: nested, sharedOriginPost: nested }));
  return postSchema(attachment, type, { share }, description);
}

export const Post = postForms(Attachment, PostType, "Post");
export const PostAlt = postForms(
  AttachmentAlt,
  Type.String({ description: "Default, Share or Poll" }),
  "Post (alternate attachment form)",
);

const EntityRef = Type.Object({
  id: Type.String(),
  obsoleteId: Type.String(),
  type: Type.String({ description: "`Post`, `Comment` or `Reply`" }),
});

export const Emotion = Type.Object({
  type: Type.Literal("Like"),
  id: Type.String({ format: "uuid" }),
  owner: UserProfile,
  obsoleteId: Type.String(),
  parent: EntityRef,
  created: Type.String({ format: "date-time" }),
});

export const Reactions = Type.Object({
  like: Type.Object({
    paging: Type.Object({
      totalCount: Type.Integer(),
      offsetEntityId: Type.String({ description: "Id of the last reaction on this page, or empty" }),
      next: Type.String({ description: "Relative link to the next reactions (offset, take); empty at the end" }),
    }),
    emotions: Type.Array(Emotion),
  }),
});

export const CommentRequesterContext = Type.Object({
  isOwner: Type.Boolean(),
  isLiking: Type.Boolean(),
  isFlaggingAsSpam: Type.Boolean(),
});

const CommentEntity = Type.Object({
  id: Type.String({ format: "uuid" }),
  owner: UserProfile,
  obsoleteId: Type.String(),
  created: Type.String({ format: "date-time" }),
  updated: Type.String({ format: "date-time" }),
  message: Message,
  attachments: Type.Array(Attachment),
  mentions: Type.Array(MentionEntry),
  tags: Type.Array(TagEntry),
  isSpam: Type.Boolean(),
  editStatus: EditStatus,
  parent: EntityRef,
});

export const CommentItem = Type.Object(
  {
    entity: CommentEntity,
    repliesCount: Type.Integer(),
    replies: Type.Array(Type.Any(), {
      description:
        "Reply preview: the first (oldest) replies of a comment, at most 3, each a comment item with no replies; list replies for more",
    }),
    emotionsData: Reactions,
    requesterContext: CommentRequesterContext,
  },
  { description: "Comment item" },
);

export const RequesterContext = Type.Object({
  isOwner: Type.Boolean(),
  isFlaggingAsSpam: Type.Boolean(),
  isSubscribed: Type.Boolean(),
  isLiking: Type.Boolean(),
  isSaved: Type.Boolean(),
  isPinned: Type.Boolean(),
  isRequesterBlocking: Type.Boolean(),
  isInteractionRestricted: Type.Boolean(),
  isFollowing: Type.Boolean(),
});

const Reason = Nullable(
  Type.Object({
    type: Type.Union([Type.Literal("followed-user"), Type.Literal("instrument-trending")]),
    sourceId: Type.String({ description: "The followed user's gcid or the trending instrument's id" }),
    owner: Type.String({ description: "The followed user's username or the instrument's symbol" }),
  }),
);

function discussionSchema<P extends TSchema>(post: P) {
  return Type.Object(
    {
      id: Type.String({ format: "uuid" }),
      post,
      commentsData: Type.Object({
        reactionPaging: Type.Object({ totalCount: Type.Integer({ description: "Comments (not replies)" }) }),
        comments: Type.Array(CommentItem, {
          description:
            "Inline comments preview, newest first: a single post's `take` (each with its first 3 replies); " +
            "in feeds the 2 newest (`replies` empty).",
        }),
      }),
      emotionsData: Reactions,
      requesterContext: RequesterContext,
      summary: Type.Object({ totalCommentsAndReplies: Type.Integer(), sharedCount: Type.Integer() }),
      reason: Type.Optional(Reason),
    },
    { description: "Discussion" },
  );
}

export const Discussion = discussionSchema(Post);
export const DiscussionAlt = discussionSchema(PostAlt);

function feedPage<D extends TSchema>(discussion: D) {
  return Type.Object(
    {
      discussions: Type.Array(discussion),
      paging: Type.Object({
        next: Type.String({ description: "Relative link to the next page; empty on the last page" }),
        offSet: Type.Integer(),
        take: Type.Integer(),
        version: Type.String(),
      }),
      metadata: Type.Object({
        experimentName: Type.String(),
        streamType: Type.String(),
        designatedStreamType: Type.String(),
      }),
    },
    { description: "Feed page" },
  );
}

export const FeedPage = feedPage(Discussion);
export const FeedPageAlt = feedPage(DiscussionAlt);

export const CommentsResponse = Type.Object({
  reactionPaging: Type.Object({
    totalCount: Type.Integer(),
    offsetEntityId: Type.String(),
    next: Type.String({ description: "Relative link to the next page; empty at the end" }),
  }),
  comments: Type.Array(CommentItem),
});

export const EmotionsResponse = Reactions.properties.like;

export const SharesResponse = Type.Object({
  paging: Type.Object({ totalCount: Type.Integer(), offsetEntityId: Type.String(), next: Type.String() }),
  postShares: Type.Array(
    Type.Object({
      shareReactionId: Type.String({ description: "The share post's id" }),
      createdAt: Type.String({ format: "date-time" }),
      owner: UserProfile,
    }),
  ),
});

// ---------------------------------------------------------------- request bodies

export const MESSAGE_MAX = 1000;
export const COMMENT_MAX = 500;
export const ATTACHMENTS_MAX = 10;

const Attachments = Type.Array(AttachmentIn, { maxItems: ATTACHMENTS_MAX });

export const CreateDiscussionBody = Type.Object({
  owner: Type.Optional(Int32({ description: "The caller's gcid; any other value is refused (403)" })),
  message: Type.String({ description: `Post text, 1 to ${MESSAGE_MAX} characters` }),
  tags: Type.Optional(
    Type.Object({
      tags: Type.Array(
        Type.Object({
          name: Type.Optional(Type.String()),
          id: Type.String({ description: "An instrument id" }),
        }),
        { maxItems: 20 },
      ),
    }),
  ),
  mentions: Type.Optional(
    Type.Object({
      mentions: Type.Array(
        Type.Object({
          userName: Type.Optional(Type.String()),
          id: Type.Optional(Type.String({ description: "The user's gcid (or id); userName is used when absent" })),
          isDirect: Type.Optional(Type.Boolean({ default: true })),
        }),
        { maxItems: 20 },
      ),
    }),
  ),
  attachments: Type.Optional(Attachments),
});

export const CreatePollBody = Type.Object({
  message: Type.String({ description: `Post text, 1 to ${MESSAGE_MAX} characters` }),
  poll: Type.Object({
    title: Type.String({ minLength: 1, maxLength: 200 }),
    options: Type.Array(
      Type.Object({
        text: Type.String({ minLength: 1, maxLength: 100 }),
        index: Int32({ minimum: 1, description: "1-based, unique within the poll" }),
      }),
      { minItems: 2, maxItems: 4 },
    ),
  }),
  attachments: Type.Optional(Attachments),
});

export const UpdatePostBody = Type.Object({
  message: Type.String({ description: `Post text, 1 to ${MESSAGE_MAX} characters` }),
  attachments: Type.Optional(Attachments),
});

export const CommentBody = Type.Object({
  message: Type.String({ description: `Comment text, 1 to ${COMMENT_MAX} characters` }),
  attachments: Type.Optional(Attachments),
});

export const ShareBody = Type.Object({
  message: Type.String({ description: "Empty for a reshare, commentary for a quote share" }),
  sharedOriginDiscussion: Type.String({ format: "uuid" }),
  sharedDiscussionId: Type.Optional(Type.String({ format: "uuid" })),
  attachments: Type.Optional(Attachments),
});

// ---------------------------------------------------------------- parameters

const Badges = Type.Boolean({ default: false, description: "Accepted for compatibility; no badges here" });

export const FeedQuery = Type.Object({
  take: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  offset: Int32({ minimum: 0, default: 0 }),
  reactionsPageSize: Type.Integer({ minimum: 1, maximum: 50, default: 10 }),
  badgesExperimentIsEnabled: Badges,
});

export const FeedQueryWithRequester = Type.Object({
  ...FeedQuery.properties,
  requesterUserId: Type.Optional(
    Type.String({ description: "Accepted for compatibility; the requester is always the authenticated caller" }),
  ),
});

export const PinnedQuery = Type.Object({ badgesExperimentIsEnabled: Badges });

export const PostQuery = Type.Object({
  take: Type.Integer({ minimum: 0, maximum: 100, default: 10, description: "Inline comments" }),
  badgesExperimentIsEnabled: Badges,
});

export const ListQuery = Type.Object({
  take: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  offsetEntityId: Type.Optional(Type.String({ format: "uuid" })),
  // Upstream's enum is Asc | Desc; lower case is accepted too.
  order: Type.Union([Type.Literal("Desc"), Type.Literal("Asc"), Type.Literal("desc"), Type.Literal("asc")], {
    default: "Desc",
  }),
  badgesExperimentIsEnabled: Badges,
});

export const EmotionsQuery = Type.Object({
  take: Type.Integer({ minimum: 1, maximum: 50, default: 10 }),
  offset: Int32({ minimum: 0, default: 0 }),
});

export const PostParams = Type.Object({ postId: Type.String({ format: "uuid" }) });
export const CommentParams = Type.Object({
  postId: Type.String({ format: "uuid" }),
  commentId: Type.String({ format: "uuid" }),
});
export const ReplyParams = Type.Object({
  postId: Type.String({ format: "uuid" }),
  commentId: Type.String({ format: "uuid" }),
  replyId: Type.String({ format: "uuid" }),
});
export const VoteParams = Type.Object({
  postId: Type.String({ format: "uuid" }),
  pollId: Int32Id(),
  optionId: Int32Id(),
});
export const MarketParams = Type.Object({ marketId: Type.String({ description: "The instrument id" }) });
export const UserParams = Type.Object({ userId: Type.String({ description: "gcid, user id (uuid) or username" }) });
export const EntityParams = Type.Object({ entityId: Type.String({ format: "uuid" }) });

/** The serializers of a discussion's parts that a like or a comment patches in kept documents (0198). */
export interface PartSerializers {
  reactions: (view: Static<typeof Reactions>) => string;
  comments: (view: Static<typeof Discussion>["commentsData"]) => string;
  summary: (view: Static<typeof Discussion>["summary"]) => string;
}
let partSerializers: PartSerializers | undefined;

/** The serializers of those parts, as every discussion's route serializes them; compiled once. */
export function discussionPartSerializers(): PartSerializers {
  const { commentsData, summary } = Discussion.properties;
  partSerializers ??= {
    reactions: serializerOf(Reactions),
    comments: serializerOf(commentsData),
    summary: serializerOf(summary),
  };
  return partSerializers;
}
