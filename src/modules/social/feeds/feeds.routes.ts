import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { sendCached, sendFailure, sendParts } from "../../../http/cached-reply.js";
import { type Deps, withActor } from "../../context.js";
import { READ_SCOPES } from "../shared/access.js";
import { E404 } from "../shared/errors.schemas.js";
import type { SharedParts } from "../shared/shared-documents.js";
import {
  discussionPartSerializers,
  FeedPage,
  FeedPageAlt,
  FeedQuery,
  FeedQueryWithRequester,
  MarketParams,
  PinnedQuery,
  UserParams,
} from "../shared/social.schemas.js";
import { FeedDocVariants, feedDocPatcher } from "./feed-docs.js";
import { type FeedRequest, type FeedVariant, feedVariant, PINNED_MAX, readFeed } from "./read-feed.js";
import { sharedFeedAnswer, sharedFrame, sharesListing } from "./shared-feed.js";

const PAGING_NOTE =
  "`take` 1..100 (default 20), `offset` >= 0, `reactionsPageSize` 1..50 (default 10); out of range: 422. " +
  "`paging.next` links to the following page, empty on the last one. Deleted and spam posts, private " +
  "profiles (but the caller's own) and users on either side of a block never appear. Each discussion " +
  "carries its 2 newest comments inline (`replies` empty; `repliesCount` and the post's summary count them).";

/** What tells one feed's route from another's (the path aside). */
interface FeedRoute {
  operationId: string;
  summary: string;
  params?: typeof MarketParams | typeof UserParams;
  alias?: boolean;
  alt?: boolean;
  pinned?: boolean;
  request: (params: Record<string, string>) => FeedRequest;
}

export function registerFeedRoutes(app: App, deps: Deps, parts: SharedParts): void {
  // A like or a plain comment is added to the post's kept feed documents (0210).
  const variants = new FeedDocVariants();
  parts.cache.patchWith(feedDocPatcher(variants, discussionPartSerializers()));
  feedRoute(app, deps, parts, variants, "/api/v1/feeds/saved", {
    operationId: "getSavedFeed",
    summary: "The caller's saved posts, newest save first",
    request: () => ({ feed: "saved" }),
  });
  feedRoute(app, deps, parts, variants, "/api/v1/feeds/instrument/:marketId", {
    operationId: "getInstrumentFeedPosts",
    summary: "Posts tagged with one instrument (older alias; alternate attachment form)",
    params: MarketParams,
    alias: true,
    alt: true,
    request: (p) => ({ feed: "instrument", marketId: p.marketId!, alias: true }),
  });
  feedRoute(app, deps, parts, variants, "/api/v1/feeds/markets/:marketId", {
    operationId: "getInstrumentFeedPosts2",
    summary: "Posts tagged with one instrument",
    params: MarketParams,
    request: (p) => ({ feed: "instrument", marketId: p.marketId!, alias: false }),
  });
  feedRoute(app, deps, parts, variants, "/api/v1/feeds/user/:userId", {
    operationId: "getUserFeedPosts",
    summary: "Posts of one user (older alias)",
    params: UserParams,
    alias: true,
    request: (p) => ({ feed: "user", userId: p.userId!, alias: true }),
  });
  feedRoute(app, deps, parts, variants, "/api/v1/feeds/users/:userId", {
    operationId: "getUserFeedPosts2",
    summary: "Posts of one user",
    params: UserParams,
    request: (p) => ({ feed: "user", userId: p.userId!, alias: false }),
  });
  feedRoute(app, deps, parts, variants, "/api/v1/feeds/users/:userId/pinned", {
    operationId: "getUserPinnedFeedPosts",
    summary: `Posts one user pinned to their profile, newest pin first (no paging; at most ${PINNED_MAX})`,
    params: UserParams,
    pinned: true,
    request: (p) => ({ feed: "pinned", userId: p.userId! }),
  });
  feedRoute(app, deps, parts, variants, "/api/v1/feeds/following", {
    operationId: "getFollowingFeed",
    summary: "Posts of the users the caller follows",
    request: () => ({ feed: "following" }),
  });
  feedRoute(app, deps, parts, variants, "/api/v1/feeds/for-you", {
    operationId: "getPersonalisedForYouFeed",
    summary: "Posts of followed users and of trending instruments, each with its `reason`",
    request: () => ({ feed: "forYou" }),
  });
  feedRoute(app, deps, parts, variants, "/api/v1/feeds/news", {
    operationId: "getNewsFeed",
    summary: "Every visible post, newest first",
    request: () => ({ feed: "news" }),
  });
}

/** One feed: a page of discussions, answered from the read cache while nothing it shows changed. */
function feedRoute(
  app: App,
  deps: Deps,
  parts: SharedParts,
  variants: FeedDocVariants,
  url: string,
  f: FeedRoute,
): void {
  const cache = parts.cache;
  app.route({
    method: "GET",
    url,
    ...api(
      { scopes: READ_SCOPES, rateLimit: "feed" },
      {
        operationId: f.operationId,
        tags: ["Feeds"],
        summary: f.summary,
        description: f.pinned ? "Only `badgesExperimentIsEnabled`; no paging." : PAGING_NOTE,
        ...(f.params ? { params: f.params } : {}),
        querystring: f.pinned ? PinnedQuery : f.alias ? FeedQueryWithRequester : FeedQuery,
        response: { 200: f.alt ? FeedPageAlt : FeedPage, 404: E404("No such instrument or user") },
      },
      deps.config.scopePrefix,
    ),
    // Not async: sendCached sends the reply (a cached answer at once).
    handler: (request, reply) => {
      const q = request.query as {
        take?: number;
        offset?: number;
        reactionsPageSize?: number;
        badgesExperimentIsEnabled?: boolean;
      };
      const ctx = withActor(deps, request.actor);
      const params = (request.params ?? {}) as Record<string, string>;
      const feed = f.request(params);
      const query = {
        take: q.take ?? 20,
        offset: q.offset ?? 0,
        reactionsPageSize: q.reactionsPageSize ?? 10,
        badgesExperimentIsEnabled: q.badgesExperimentIsEnabled === true,
      };
      const send = (variant: FeedVariant) => {
        const key = [
          f.operationId,
          // Feeds require a user (checked, with its scopes, by the route's hooks).
          request.actor.kind === "user" ? request.actor.userId : "",
          params.marketId ?? params.userId ?? "",
          query.take,
          query.offset,
          query.reactionsPageSize,
          query.badgesExperimentIsEnabled,
          variant.key,
        ].join("\u0000");
        sendCached(reply.code(200), cache, key, () => readFeed(ctx, feed, query, variant));
      };
      if (cache.enabled && sharesListing(feed) && request.actor.kind === "user") {
        // Shared listing and documents plus the caller's marks (docs/decisions/0169, 0170).
        const serialize = (page: unknown) => String(reply.serialize(page));
        sharedFrame(ctx, parts, feed, query)
          .then((frame) => sharedFeedAnswer(ctx, parts, variants, frame, query, serialize))
          .then(
            (body) => (body ? sendParts(reply, body) : send({ key: "" })),
            (error: unknown) => sendFailure(reply, error),
          );
        return;
      }
      const variant = feedVariant(ctx, feed);
      if (variant instanceof Promise) variant.then(send).catch((error: unknown) => sendFailure(reply, error));
      else send(variant);
    },
  });
}
