import { Type } from "typebox";
import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { sendBytes, sendCached, sendFailure } from "../../../http/cached-reply.js";
import { NoContent } from "../../../http/schemas.js";
import { type Deps, withActor } from "../../context.js";
import { READ_SCOPES, WRITE_SCOPES } from "../shared/access.js";
import { E403, E404 } from "../shared/errors.schemas.js";
import type { SharedParts } from "../shared/shared-documents.js";
import {
  CreateDiscussionBody,
  Discussion,
  discussionPartSerializers,
  ListQuery,
  Post,
  PostAlt,
  PostParams,
  PostQuery,
  ShareBody,
  SharesResponse,
  UpdatePostBody,
} from "../shared/social.schemas.js";
import type { AttachmentForm } from "../shared/social.view.js";
import { createPost } from "./create-post.js";
import { deletePost } from "./delete-post.js";
import { getPost } from "./get-post.js";
import { listShares } from "./list-shares.js";
import { PostDocTakes } from "./post-doc.js";
import { postDocPatcher } from "./post-doc-patches.js";
import { sharePost } from "./share-post.js";
import { sharedPostAnswer, sharedPostHit } from "./shared-post.js";
import { updatePost } from "./update-post.js";

const TAGS = ["Feeds"];

/** A discussion post's creation: the twin operations differ in their id and their attachments' form. */
function createPostRoute(app: App, deps: Deps, url: string, operationId: string, form: AttachmentForm): void {
  app.route({
    method: "POST",
    url,
    ...api(
      { scopes: WRITE_SCOPES },
      {
        operationId,
        tags: TAGS,
        summary: "Create a discussion post",
        description:
          "A post with tags on instruments (`tags.tags[].id` = instrument id), mentions of users " +
          "(`mentions.mentions[].id` = gcid, or `userName`) and attachments. `message` is 1 to 1000 characters. " +
          (form === "alt"
            ? "Attachments come back in the alternate response form."
            : "Twin of POST /api/v1/feeds/post; attachments come back in the request form."),
        body: CreateDiscussionBody,
        response: { 201: form === "alt" ? PostAlt : Post, 403: E403 },
      },
      deps.config.scopePrefix,
      { tags: "body/tags/tags", mentions: "body/mentions/mentions" },
    ),
    handler: async (request, reply) => {
      const { tags, mentions, ...rest } = request.body;
      const input = { ...rest, tags: tags?.tags, mentions: mentions?.mentions };
      return reply.status(201).send(await createPost(withActor(deps, request.actor), input, form));
    },
  });
}

export function registerPostRoutes(app: App, deps: Deps, parts: SharedParts): void {
  const cache = parts.cache;
  // A like or a plain comment is added to the post's kept documents rather than their being built
  // again (0198), each part serialized as this route serializes it.
  const takes = new PostDocTakes();
  cache.patchWith(postDocPatcher(takes, discussionPartSerializers()));

  const prefix = deps.config.scopePrefix;
  const write = { scopes: WRITE_SCOPES };

  createPostRoute(app, deps, "/api/v1/feeds/post", "createANewDiscussionPost", "alt");
  createPostRoute(app, deps, "/api/v1/posts", "createANewDiscussionPost2", "request");

  app.route({
    method: "GET",
    url: "/api/v1/posts/:postId",
    ...api(
      { scopes: READ_SCOPES, auth: "optional" },
      {
        operationId: "getASinglePostById",
        tags: TAGS,
        summary: "Get one post with its comments preview, reactions and requester context",
        description:
          "Authentication is optional: anonymous callers get the public view (every requester flag false). " +
          "`take` inline comments (newest first), each with its first 3 replies (oldest first) and " +
          "`repliesCount`; 10 inline reactions with a `next` link. " +
          "A soft-deleted post answers as a tombstone (`isDeleted: true`, no content).",
        params: PostParams,
        querystring: PostQuery,
        response: { 200: Discussion, 404: E404("No such post, or not visible to the caller") },
      },
      prefix,
    ),
    // Not async: sendCached sends the reply (a cached answer at once).
    handler: (request, reply) => {
      const { postId } = request.params;
      const { take } = request.query;
      // The route's hooks have checked the caller and its scopes: the key needs only who it is.
      const caller = request.actor.kind === "user" ? request.actor.userId : "";
      const key = `post\u0000${caller}\u0000${postId}\u0000${take}`;
      const ctx = withActor(deps, request.actor);
      const perCaller = () => sendCached(reply.code(200), cache, key, () => getPost(ctx, postId, { take }));
      const kind = request.actor.kind;
      if (!cache.enabled || (kind !== "user" && kind !== "anonymous")) return perCaller();
      // Shared documents (docs/decisions/0169, 0191): a hit (the document and the caller's marks
      // kept) is answered at once.
      const hit = sharedPostHit(parts, postId, take, caller || null);
      if (hit) return sendBytes(reply, hit);
      sharedPostAnswer(ctx, parts, takes, postId, take, caller || null, (view) => String(reply.serialize(view))).then(
        (body) => (body ? sendBytes(reply, body) : perCaller()),
        (error: unknown) => sendFailure(reply, error),
      );
    },
  });

  app.route({
    method: "PUT",
    url: "/api/v1/posts/:postId",
    ...api(
      write,
      {
        operationId: "updateAnExistingPost",
        tags: TAGS,
        summary: "Edit a post (owner only)",
        description:
          "Replaces the text and attachments; `editStatus` becomes `Edited`. A poll's title and options never change.",
        params: PostParams,
        body: UpdatePostBody,
        response: { 200: Post, 403: E403, 404: E404("No such post, or deleted") },
      },
      prefix,
    ),
    handler: async (request) => updatePost(withActor(deps, request.actor), request.params.postId, request.body),
  });

  app.route({
    method: "DELETE",
    url: "/api/v1/posts/:postId",
    ...api(
      write,
      {
        operationId: "softDeleteAPost",
        tags: TAGS,
        summary: "Soft-delete a post (owner only)",
        params: PostParams,
        response: { 204: NoContent, 403: E403, 404: E404("No such post, or already deleted") },
      },
      prefix,
    ),
    handler: async (request, reply) => {
      await deletePost(withActor(deps, request.actor), request.params.postId);
      return reply.status(204).send(null);
    },
  });

  app.route({
    method: "POST",
    url: "/api/v1/posts/shares",
    ...api(
      write,
      {
        operationId: "shareAPost",
        tags: TAGS,
        summary: "Share a post",
        description:
          "`message` empty for a reshare, commentary for a quote share. `sharedOriginDiscussion` is the post shared; " +
          "`sharedDiscussionId` is set only when sharing through an intermediate share.",
        body: ShareBody,
        response: { 201: Post, 403: E403, 404: E404("The shared post was not found") },
      },
      prefix,
    ),
    handler: async (request, reply) =>
      reply.status(201).send(await sharePost(withActor(deps, request.actor), request.body)),
  });

  app.route({
    method: "GET",
    url: "/api/v1/posts/:postId/shares",
    ...api(
      { scopes: READ_SCOPES },
      {
        operationId: "listSharesOfAPost",
        tags: TAGS,
        summary: "List the shares of a post",
        params: PostParams,
        querystring: Type.Object({ ...ListQuery.properties, client_request_id: Type.Optional(Type.String()) }),
        response: { 200: SharesResponse, 404: E404("No such post") },
      },
      prefix,
    ),
    handler: async (request) => listShares(withActor(deps, request.actor), request.params.postId, request.query),
  });
}
