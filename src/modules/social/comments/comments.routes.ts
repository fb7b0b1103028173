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

/** Comments (level "comment") and replies (level "reply") share their shapes and rules. */
export function registerCommentRoutes(app: App, deps: Deps): void {
  listRoute(app, deps, "/api/v1/posts/:postId/comments", { level: "comment", operationId: "listCommentsOnAPost" });
  createRoute(app, deps, "/api/v1/posts/:postId/comments", { level: "comment", operationId: "createACommentOnAPost" });
  // Upstream's second path for the same operation (its Comments tag): one use case, two routes.
  createRoute(app, deps, "/api/v1/reactions/:postId/comment", {
    level: "comment",
    operationId: "createACommentOnAPost2",
  });
  updateRoute(app, deps, "/api/v1/posts/:postId/comments/:commentId", {
    level: "comment",
    operationId: "updateAComment",
  });
  deleteRoute(app, deps, "/api/v1/posts/:postId/comments/:commentId", {
    level: "comment",
    operationId: "softDeleteAComment",
  });
  likeRoute(app, deps, "POST", "/api/v1/posts/:postId/comments/:commentId/likes", {
    level: "comment",
    operationId: "likeAComment",
  });
  likeRoute(app, deps, "DELETE", "/api/v1/posts/:postId/comments/:commentId/likes", {
    level: "comment",
    operationId: "unlikeAComment",
  });

  listRoute(app, deps, "/api/v1/posts/:postId/comments/:commentId/replies", {
    level: "reply",
    operationId: "listRepliesOnAComment",
  });
  createRoute(app, deps, "/api/v1/posts/:postId/comments/:commentId/replies", {
    level: "reply",
    operationId: "createAReply",
  });
  updateRoute(app, deps, "/api/v1/posts/:postId/comments/:commentId/replies/:replyId", {
    level: "reply",
    operationId: "updateAReply",
  });
  deleteRoute(app, deps, "/api/v1/posts/:postId/comments/:commentId/replies/:replyId", {
    level: "reply",
    operationId: "softDeleteAReply",
  });
  likeRoute(app, deps, "POST", "/api/v1/posts/:postId/comments/:commentId/replies/:replyId/likes", {
    level: "reply",
    operationId: "likeAReply",
  });
  likeRoute(app, deps, "DELETE", "/api/v1/posts/:postId/comments/:commentId/replies/:replyId/likes", {
    level: "reply",
    operationId: "unlikeAReply",
  });
}

interface Operation {
  level: "comment" | "reply";
  operationId: string;
}

/** The list of a post's comments or of a comment's replies: its parameters name the parent. */
const parentOf = (p: { postId: string; commentId?: string }) => ({ postId: p.postId, commentId: p.commentId });
const listParams = (op: Operation) => (op.level === "reply" ? CommentParams : PostParams);
const noParent = (op: Operation) => E404(`No such post${op.level === "reply" ? " or comment" : ""}`);

/** One comment or reply: its parameters name it and, for a reply, the comment it answers. */
const targetOf = (op: Operation, p: { postId: string; commentId?: string; replyId?: string }) =>
  op.level === "reply"
    ? { postId: p.postId, commentId: p.commentId, id: p.replyId! }
    : { postId: p.postId, id: p.commentId! };
const oneParams = (op: Operation) => (op.level === "reply" ? ReplyParams : CommentParams);

function listRoute(app: App, deps: Deps, url: string, op: Operation): void {
  app.route({
    method: "GET",
    url,
    ...api(
      { scopes: READ_SCOPES },
      {
        operationId: op.operationId,
        tags: TAGS,
        summary: op.level === "reply" ? "List the replies to a comment" : "List the comments of a post",
        description:
          "`take` 1..100 (default 20), `order` desc (default) or asc, cursor `offsetEntityId` (from `next`).",
        params: listParams(op),
        querystring: ListQuery,
        response: { 200: CommentsResponse, 404: noParent(op) },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request) =>
      listComments(withActor(deps, request.actor), parentOf(request.params as never), request.query),
  });
}

function createRoute(app: App, deps: Deps, url: string, op: Operation): void {
  app.route({
    method: "POST",
    url,
    ...api(
      { scopes: WRITE_SCOPES },
      {
        operationId: op.operationId,
        tags: TAGS,
        summary: op.level === "reply" ? "Reply to a comment" : "Comment on a post",
        description: "`message` 1 to 500 characters; `@username` in the text mentions that user.",
        params: listParams(op),
        body: CommentBody,
        response: { 201: CommentItem, 403: E403, 404: noParent(op) },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request, reply) => {
      const item = await createComment(withActor(deps, request.actor), parentOf(request.params as never), request.body);
      return reply.status(201).send(item);
    },
  });
}

function updateRoute(app: App, deps: Deps, url: string, op: Operation): void {
  app.route({
    method: "PUT",
    url,
    ...api(
      { scopes: WRITE_SCOPES },
      {
        operationId: op.operationId,
        tags: TAGS,
        summary: `Edit a ${op.level} (its owner only)`,
        params: oneParams(op),
        body: CommentBody,
        response: { 200: CommentItem, 403: E403, 404: E404(`No such ${op.level}`) },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request) =>
      updateComment(withActor(deps, request.actor), targetOf(op, request.params as never), request.body),
  });
}

function deleteRoute(app: App, deps: Deps, url: string, op: Operation): void {
  app.route({
    method: "DELETE",
    url,
    ...api(
      { scopes: WRITE_SCOPES },
      {
        operationId: op.operationId,
        tags: TAGS,
        summary: `Soft-delete a ${op.level} (its owner, or the post's owner)`,
        params: oneParams(op),
        response: { 204: NoContent, 403: E403, 404: E404(`No such ${op.level}`) },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request, reply) => {
      await deleteComment(withActor(deps, request.actor), targetOf(op, request.params as never));
      return reply.status(204).send(null);
    },
  });
}

/** A like of a comment or reply (POST) or its removal (DELETE). */
function likeRoute(app: App, deps: Deps, method: "POST" | "DELETE", url: string, op: Operation): void {
  app.route({
    method,
    url,
    ...api(
      { scopes: WRITE_SCOPES },
      {
        operationId: op.operationId,
        tags: TAGS,
        summary: `${method === "POST" ? "Like" : "Unlike"} a ${op.level}`,
        params: oneParams(op),
        response: { 204: NoContent, 403: E403, 404: E404(`No such ${op.level}`) },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request, reply) => {
      const target = targetOf(op, request.params as never);
      await likeComment(withActor(deps, request.actor), target, method === "POST");
      return reply.status(204).send(null);
    },
  });
}
