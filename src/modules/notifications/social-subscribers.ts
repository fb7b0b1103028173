import type { DomainEventType, EventOf } from "../../core/events.js";
import { newId } from "../../core/ids.js";
import { type Deps, subscribeInTransaction } from "../context.js";
import { type NotifyInput, notifyWithin } from "./notify.js";

/**
 * Notifications from social events (docs/notifications.md). Kinds that can pile up on one post
 * (likes, comments, shares) carry an aggregationId so a client can fold them together.
 *
 * Each is written inside the transaction of the like, comment, post, follow or share that causes
 * it (decision 0204): the two commit together, in one commit, so a crash between them cannot keep
 * the write and lose its notification, and a write no longer waits for a second commit.
 */
export function registerSocialSubscribers(deps: Deps): void {
  const notifyOn = <T extends DomainEventType>(type: T, input: (event: EventOf<T>) => NotifyInput) =>
    subscribeInTransaction(deps, type, (trx, event, record) => notifyWithin(trx, deps, input(event), record));
  notifyOn("UserMentioned", (e) => ({
    userId: e.userId,
    kind: "mention",
    message: `@${e.actorUsername} mentioned you in a ${e.commentId ? "comment" : "post"}`,
    actionLink: `/api/v1/posts/${e.postId}`,
    correlationId: e.commentId ?? e.postId,
    publishDate: e.occurredAt,
  }));
  notifyOn("PostCommented", (e) => ({
    userId: e.postOwnerId,
    kind: e.isReply ? "postReply" : "postComment",
    message: `@${e.actorUsername} ${e.isReply ? "replied to a comment on" : "commented on"} your post`,
    actionLink: `/api/v1/posts/${e.postId}`,
    correlationId: e.commentId,
    aggregationId: `comments:${e.postId}`,
    publishDate: e.occurredAt,
  }));
  notifyOn("PostLiked", (e) => ({
    userId: e.postOwnerId,
    kind: "postLike",
    message: `@${e.actorUsername} liked your post`,
    actionLink: `/api/v1/posts/${e.postId}`,
    correlationId: e.postId,
    aggregationId: `likes:${e.postId}`,
    publishDate: e.occurredAt,
  }));
  notifyOn("UserFollowed", (e) => ({
    userId: e.userId,
    kind: "newFollower",
    message: `@${e.actorUsername} started following you`,
    actionLink: `/api/v1/feeds/users/${e.actorGcid}`,
    imageUrl: `/api/v1/avatars/users/${e.actorGcid}/150x150.svg`,
    imageTitle: e.actorUsername,
    correlationId: newId(),
    aggregationId: "followers",
    publishDate: e.occurredAt,
  }));
  notifyOn("PostShared", (e) => ({
    userId: e.postOwnerId,
    kind: "postShare",
    message: `@${e.actorUsername} shared your post`,
    actionLink: `/api/v1/posts/${e.sharePostId}`,
    correlationId: e.sharePostId,
    aggregationId: `shares:${e.postId}`,
    publishDate: e.occurredAt,
  }));
}
