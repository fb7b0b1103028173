import { Type } from "typebox";
import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { errorResponse, NoContent } from "../../../http/schemas.js";
import { type Deps, withActor } from "../../context.js";
import { WRITE_SCOPES } from "../shared/access.js";
import { E403, E404 } from "../shared/errors.schemas.js";
import { CreatePollBody, Post, VoteParams } from "../shared/social.schemas.js";
import { createPoll } from "./create-poll.js";
import { removeVote } from "./remove-vote.js";
import { vote } from "./vote.js";

const TAGS = ["Feeds"];

export function registerPollRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  const write = { scopes: WRITE_SCOPES };

  app.route({
    method: "POST",
    url: "/api/v1/posts/polls",
    ...api(
      write,
      {
        operationId: "createAPollPost",
        tags: TAGS,
        summary: "Create a poll post",
        description:
          "`message` (1 to 1000 characters) and `poll.title` are required; `poll.options` holds 2 to 4 options " +
          "with unique 1-based `index`. The poll is immutable afterwards.",
        body: CreatePollBody,
        response: { 201: Post },
      },
      prefix,
    ),
    handler: async (request, reply) =>
      reply.status(201).send(await createPoll(withActor(deps, request.actor), request.body)),
  });

  voteRoute(app, deps, "POST", "/api/v1/posts/:postId/polls/:pollId/options/:optionId/votes", {
    operationId: "voteOnAPollOption",
    summary: "Vote for a poll option",
    description: "One vote per user per poll: voting for another option moves the vote. Answers 202.",
    run: vote,
  });
  voteRoute(app, deps, "DELETE", "/api/v1/posts/:postId/polls/:pollId/options/:optionId/votes", {
    operationId: "removeVotePollOption",
    summary: "Remove a vote",
    description: "Removes the caller's vote for this option (nothing happens when there is none). Answers 202.",
    run: removeVote,
  });
}

/** A vote or its removal: the same path, answers and parameters. */
function voteRoute(
  app: App,
  deps: Deps,
  method: "POST" | "DELETE",
  url: string,
  op: { operationId: string; summary: string; description: string; run: typeof vote },
): void {
  app.route({
    method,
    url,
    ...api(
      { scopes: WRITE_SCOPES },
      {
        operationId: op.operationId,
        tags: TAGS,
        summary: op.summary,
        description: op.description,
        params: VoteParams,
        querystring: Type.Object({ client_request_id: Type.Optional(Type.String()) }),
        response: {
          202: NoContent,
          403: E403,
          404: E404("No such post, poll or option"),
          422: errorResponse(422, "The poll is not part of the post, or the path is malformed"),
        },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request, reply) => {
      const { postId, pollId, optionId } = request.params;
      await op.run(withActor(deps, request.actor), postId, pollId, optionId);
      // Upstream answers 202 with no content.
      return reply.status(202).send(undefined as unknown as null);
    },
  });
}
