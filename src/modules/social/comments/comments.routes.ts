import { Type } from "typebox";
import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { errorResponse, NoContent } from "../../../http/schemas.js";
import { type Deps, withActor } from "../../context.js";
import { blockUser, followUser, unblockUser, unfollowUser } from "../graph/follow-user.js";
import { E404 } from "../posts/posts.routes.js";
import { listReactions } from "../reactions/list-reactions.js";
import { type Mark, markPost, unmarkPost } from "../reactions/mark-post.js";
import { READ_SCOPES, WRITE_SCOPES } from "../shared/access.js";
import {
  CommentBody,
  CommentItem,
  CommentParams,
  CommentsResponse,
  EmotionsQuery,
  EmotionsResponse,
  EntityParams,
  ListQuery,
  PostParams,
  ReplyParams,
  UserParams,
} from "../shared/social.schemas.js";
import { createComment, deleteComment, likeComment, listComments, updateComment } from "./comments.rules.js";

const TAGS = ["Feeds"];
const E403 = errorResponse(403, "Not yours, or the owner restricts your interactions");

const MARKS: { path: string; mark: Mark; name: string; notes: string }[] = [
  { path: "likes", mark: "like", name: "Post", notes: "Like a post" },
  { path: "saves", mark: "save", name: "APost", notes: "Save a post to the caller's saved feed" },
  { path: "pins", mark: "pin", name: "PostUserSProfile", notes: "Pin one of the caller's own posts to their profile" },
  { path: "follows", mark: "follow", name: "APost", notes: "Follow a post" },
];

export function registerInteractionRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  const write = { scopes: WRITE_SCOPES };

  for (const m of MARKS) {
    for (const method of ["POST", "DELETE"] as const) {
      const verb = method === "POST" ? m.mark : `un${m.mark}`;
      app.route({
        method,
        url: `/api/v1/posts/:postId/${m.path}`,
        ...api(
          write,
          {
            operationId: `${verb}${m.name}`,
            tags: TAGS,
            summary: method === "POST" ? m.notes : `Undo: ${m.notes.toLowerCase()}`,
            description: "Idempotent. 404 for an unknown or deleted post.",
            params: PostParams,
            response: { 204: NoContent, 403: E403, 404: E404("No such post, or deleted") },
          },
          prefix,
        ),
        handler: async (request, reply) => {
          const ctx = withActor(deps, request.actor);
          await (method === "POST" ? markPost : unmarkPost)(ctx, request.params.postId, m.mark);
          return reply.status(204).send(null);
        },
      });
    }
  }

  // Comments (level "comment") and replies (level "reply") share their shapes and rules.
  for (const level of ["comment", "reply"] as const) {
    const isReply = level === "reply";
    const list = isReply ? "/api/v1/posts/:postId/comments/:commentId/replies" : "/api/v1/posts/:postId/comments";
    const one = isReply ? `${list}/:replyId` : `${list}/:commentId`;
    const Noun = isReply ? "Reply" : "Comment";
    const ListParams = isReply ? CommentParams : PostParams;
    const OneParams = isReply ? ReplyParams : CommentParams;
    const targetOf = (p: { postId: string; commentId?: string; replyId?: string }) =>
      isReply ? { postId: p.postId, commentId: p.commentId, id: p.replyId! } : { postId: p.postId, id: p.commentId! };

    app.route({
      method: "GET",
      url: list,
      ...api(
        { scopes: READ_SCOPES },
        {
          operationId: isReply ? "listRepliesOnAComment" : "listCommentsOnAPost",
          tags: TAGS,
          summary: isReply ? "List the replies to a comment" : "List the comments of a post",
          description:
            "`take` 1..100 (default 20), `order` desc (default) or asc, cursor `offsetEntityId` (from `next`).",
          params: ListParams,
          querystring: ListQuery,
          response: { 200: CommentsResponse, 404: E404(`No such post${isReply ? " or comment" : ""}`) },
        },
        prefix,
      ),
      handler: async (request) => {
        const p = request.params as { postId: string; commentId?: string };
        return listComments(
          withActor(deps, request.actor),
          { postId: p.postId, commentId: p.commentId },
          request.query,
        );
      },
    });

    app.route({
      method: "POST",
      url: list,
      ...api(
        write,
        {
          operationId: isReply ? "createAReply" : "createACommentOnAPost",
          tags: TAGS,
          summary: isReply ? "Reply to a comment" : "Comment on a post",
          description: "`message` 1 to 500 characters; `@username` in the text mentions that user.",
          params: ListParams,
          body: CommentBody,
          response: { 201: CommentItem, 403: E403, 404: E404(`No such post${isReply ? " or comment" : ""}`) },
        },
        prefix,
      ),
      handler: async (request, reply) => {
        const p = request.params as { postId: string; commentId?: string };
        const item = await createComment(
          withActor(deps, request.actor),
          { postId: p.postId, commentId: p.commentId },
          request.body,
        );
        return reply.status(201).send(item);
      },
    });

    app.route({
      method: "PUT",
      url: one,
      ...api(
        write,
        {
          operationId: `updateA${Noun}`,
          tags: TAGS,
          summary: `Edit a ${level} (its owner only)`,
          params: OneParams,
          body: CommentBody,
          response: { 200: CommentItem, 403: E403, 404: E404(`No such ${level}`) },
        },
        prefix,
      ),
      handler: async (request) =>
        updateComment(withActor(deps, request.actor), targetOf(request.params as never), request.body),
    });

    app.route({
      method: "DELETE",
      url: one,
      ...api(
        write,
        {
          operationId: `softDeleteA${Noun}`,
          tags: TAGS,
          summary: `Soft-delete a ${level} (its owner, or the post's owner)`,
          params: OneParams,
          response: { 204: NoContent, 403: E403, 404: E404(`No such ${level}`) },
        },
        prefix,
      ),
      handler: async (request, reply) => {
        await deleteComment(withActor(deps, request.actor), targetOf(request.params as never));
        return reply.status(204).send(null);
      },
    });

    for (const method of ["POST", "DELETE"] as const) {
      app.route({
        method,
        url: `${one}/likes`,
        ...api(
          write,
          {
            operationId: `${method === "POST" ? "like" : "unlike"}A${Noun}`,
            tags: TAGS,
            summary: `${method === "POST" ? "Like" : "Unlike"} a ${level}`,
            params: OneParams,
            response: { 204: NoContent, 403: E403, 404: E404(`No such ${level}`) },
          },
          prefix,
        ),
        handler: async (request, reply) => {
          await likeComment(withActor(deps, request.actor), targetOf(request.params as never), method === "POST");
          return reply.status(204).send(null);
        },
      });
    }
  }

  app.route({
    method: "GET",
    url: "/api/v1/reactions/:entityId/emotions",
    ...api(
      { scopes: READ_SCOPES, auth: "optional" },
      {
        operationId: "listReactions",
        tags: TAGS,
        summary: "Reactions (likes) of a post or comment, newest first",
        description: "The target of `emotionsData.like.paging.next`. `take` 1..50 (default 10), `offset` >= 0.",
        params: EntityParams,
        querystring: EmotionsQuery,
        response: { 200: EmotionsResponse, 404: E404("No such post or comment") },
      },
      prefix,
    ),
    handler: async (request) => listReactions(withActor(deps, request.actor), request.params.entityId, request.query),
  });

  for (const [path, on, off, what] of [
    ["follows", followUser, unfollowUser, "Follow"],
    ["blocks", blockUser, unblockUser, "Block"],
  ] as const) {
    for (const method of ["POST", "DELETE"] as const) {
      app.route({
        method,
        url: `/api/v1/users/:userId/${path}`,
        ...api(
          write,
          {
            operationId: `${method === "POST" ? "" : "un"}${what.toLowerCase()}User`,
            tags: ["Users"],
            summary: `${method === "POST" ? what : `Un${what.toLowerCase()}`} a user`,
            description:
              path === "follows"
                ? "Idempotent. Their posts then appear in GET /api/v1/feeds/following and for-you. 403 across a block."
                : "Idempotent. Both users' posts disappear from each other's feeds, follows between them end.",
            params: UserParams,
            querystring: Type.Object({}),
            response: { 204: NoContent, 403: E403, 404: E404("No such user") },
          },
          prefix,
        ),
        handler: async (request, reply) => {
          await (method === "POST" ? on : off)(withActor(deps, request.actor), request.params.userId);
          return reply.status(204).send(null);
        },
      });
    }
  }
}
