import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { NoContent } from "../../../http/schemas.js";
import { type Deps, withActor } from "../../context.js";
import { READ_SCOPES, WRITE_SCOPES } from "../shared/access.js";
import { E403, E404 } from "../shared/errors.schemas.js";
import {
  CommentBody,
  CommentItem,
  CommentParams,
  CommentsResponse,
  ListQuery,
  PostParams,
  ReplyParams,
} from "../shared/social.schemas.js";
import { createComment } from "./create-comment.js";
import { deleteComment } from "./delete-comment.js";
import { likeComment } from "./like-comment.js";
import { listComments } from "./list-comments.js";
import { updateComment } from "./update-comment.js";

const TAGS = ["Feeds"];

export function registerCommentRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  const write = { scopes: WRITE_SCOPES };

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
}
