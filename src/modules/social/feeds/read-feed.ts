import { AppError, invalid } from "../../../core/errors.js";
import type { Ctx } from "../../context.js";
import { resolveUserRefs } from "../../identity/user-profiles.js";
import { findInstruments } from "../../market/find-instruments.js";
import { requireReader } from "../shared/access.js";
import { assembleDiscussions } from "../shared/assemble.js";
import {
  type Answer,
  type DependencyKey,
  dependenciesOf,
  LISTINGS,
  PERSONAL_LISTINGS,
  userKey,
} from "../shared/read-cache.js";
import { socialRepository } from "../shared/social.repository.js";
import type { FeedSource } from "../shared/social.rows.js";
import { type AttachmentForm, type FeedPageView, type ReasonView, toFeedPage } from "../shared/social.view.js";

export interface FeedQuery {
  take: number;
  offset: number;
  reactionsPageSize: number;
  /** Accepted as upstream does (no badges are shown); carried into `paging.next` when set. */
  badgesExperimentIsEnabled?: boolean;
}

export type FeedRequest =
  | { feed: "saved" }
  | { feed: "instrument"; marketId: string; alias: boolean }
  | { feed: "user"; userId: string; alias: boolean }
  | { feed: "pinned"; userId: string }
  | { feed: "following" }
  | { feed: "forYou" }
  | { feed: "news" };

/**
 * Inline comments of each feed discussion (docs/decisions/0083): the newest, without their replies
 * (`repliesCount` says how many); the whole thread is one `GET /api/v1/posts/{postId}` away.
 */
export const FEED_COMMENTS_PREVIEW = 2;

/** The pinned feed has no paging: this many pins at most, newest pin first. */
export const PINNED_MAX = 100;
/** For-you: instruments with the most posts over this window are "trending". */
export const TRENDING_WINDOW_DAYS = 7;
export const TRENDING_INSTRUMENTS = 5;

const STREAM: Record<FeedRequest["feed"], string> = {
  saved: "Saved",
  instrument: "Instrument",
  user: "User",
  pinned: "Pinned",
  following: "Following",
  forYou: "ForYou",
  news: "News",
};

function marketIdOf(raw: string): number {
  const trimmed = raw.trim();
  if (!/^\d{1,9}$/.test(trimmed))
    throw invalid("marketId", `must be an instrument id (digits); got ${JSON.stringify(raw)}`);
  return Number(trimmed);
}

/**
 * Every feed: one page of discussions, assembled with a bounded number of queries. The answer
 * names what it was made of (for the read cache): which posts feeds hold, the posts shown, the
 * caller's own graph and, for a pinned feed, its owner's pins.
 */
export async function readFeed(
  ctx: Ctx,
  request: FeedRequest,
  query: FeedQuery,
  /** The variant the caller keyed the answer by (for-you: build the page from that trending list). */
  variant?: FeedVariant,
): Promise<Answer<FeedPageView>> {
  const me = requireReader(ctx.actor).userId;
  const { source, path, form, trending, deps, paged, take, offset } = await feedFrame(ctx, request, query, variant);
  const repo = socialRepository(ctx.db.kysely);
  // One row more than the page tells whether a next page exists.
  const rows = await repo.feedPage(source, me, offset, take + 1);
  const page = rows.slice(0, take);
  const reasons = request.feed === "forYou" ? await reasonsFor(ctx, me, page, trending) : undefined;
  const discussions = await assembleDiscussions(ctx, page, {
    requesterId: me,
    commentsTake: FEED_COMMENTS_PREVIEW,
    withReplies: false,
    reactionsTake: paged ? query.reactionsPageSize : 10,
    form,
    ...(reasons ? { reasons } : {}),
  });
  return {
    view: toFeedPage(
      discussions,
      pagingOf(path, query, offset, take, paged && rows.length > take),
      STREAM[request.feed],
    ),
    deps: [...deps, ...dependenciesOf(page, me)],
  };
}

/** A page's paging: `next` links to the following page when there is one. */
export function pagingOf(path: string, query: FeedQuery, offset: number, take: number, hasNext: boolean) {
  const next = hasNext
    ? `${path}?offset=${offset + take}&take=${take}&reactionsPageSize=${query.reactionsPageSize}${
        query.badgesExperimentIsEnabled ? "&badgesExperimentIsEnabled=true" : ""
      }`
    : "";
  return { next, offSet: offset, take };
}

/** What a feed request reads: its source, its path (for `next`), its form and its stream's name. */
export interface FeedFrame {
  source: FeedSource;
  path: string;
  form: AttachmentForm;
  stream: string;
  trending: number[];
  /** What the page depends on besides the posts it shows. */
  deps: DependencyKey[];
  paged: boolean;
  take: number;
  offset: number;
}

/** Resolves a feed request (404 for an unknown instrument or user). */
export async function feedFrame(
  ctx: Ctx,
  request: FeedRequest,
  query: FeedQuery,
  variant?: FeedVariant,
): Promise<FeedFrame> {
  const me = requireReader(ctx.actor).userId;
  const paged = request.feed !== "pinned";
  const take = paged ? query.take : PINNED_MAX;
  const offset = paged ? query.offset : 0;
  let source: FeedSource;
  let path: string;
  let form: AttachmentForm = "request";
  let trending: number[] = [];
  const deps: DependencyKey[] = [LISTINGS, PERSONAL_LISTINGS];
  switch (request.feed) {
    case "saved":
      source = { kind: "saved", userId: me };
      path = "/api/v1/feeds/saved";
      break;
    case "instrument": {
      const instrumentId = marketIdOf(request.marketId);
      if (!(await findInstruments(ctx, [instrumentId])).has(instrumentId)) {
        throw new AppError("NotFound", `No instrument ${instrumentId}`);
      }
      source = { kind: "instrument", instrumentId };
      path = `/api/v1/feeds/${request.alias ? "instrument" : "markets"}/${instrumentId}`;
      // The spec gives the instrument feed (only) the alternate attachment form.
      if (request.alias) form = "alt";
      break;
    }
    case "user":
    case "pinned": {
      const user = (await resolveUserRefs(ctx, [request.userId])).get(request.userId);
      if (!user) throw new AppError("NotFound", `No user "${request.userId}"`);
      source =
        request.feed === "user" ? { kind: "owner", ownerId: user.userId } : { kind: "pinned", userId: user.userId };
      if (request.feed === "pinned") deps.push(userKey(user.userId));
      path =
        request.feed === "pinned"
          ? `/api/v1/feeds/users/${user.gcid}/pinned`
          : `/api/v1/feeds/${request.alias ? "user" : "users"}/${user.gcid}`;
      break;
    }
    case "following":
      source = { kind: "following", followerId: me };
      path = "/api/v1/feeds/following";
      break;
    case "forYou": {
      trending = variant?.trending ? [...variant.trending] : await trendingInstruments(ctx);
      source = { kind: "forYou", userId: me, instrumentIds: trending };
      path = "/api/v1/feeds/for-you";
      break;
    }
    case "news":
      source = { kind: "all" };
      path = "/api/v1/feeds/news";
      break;
  }

  return { source, path, form, stream: STREAM[request.feed], trending, deps, paged, take, offset };
}

/** What a feed page depends on that no write announces: for-you's trending instruments. */
export interface FeedVariant {
  /** Part of the read cache's key, so that a new trending list is a new answer. */
  key: string;
  trending?: readonly number[];
}

const PLAIN: FeedVariant = { key: "" };

/** The variant to key a page by and to build it from (a promise only for for-you). */
export function feedVariant(ctx: Ctx, request: FeedRequest): FeedVariant | Promise<FeedVariant> {
  if (request.feed !== "forYou") return PLAIN;
  return trendingInstruments(ctx).then((trending) => ({ key: trending.join(","), trending }));
}

/**
 * The trending instruments are an aggregate over a week of tags: computed at most once a minute
 * per process, so for-you pages do not pay for it on every read.
 */
export interface TrendingMemo {
  last?: { at: number; ids: number[] };
}
declare module "../../context.js" {
  interface Deps {
    /** Social: the trending instruments last computed, and when. */
    readonly trending: TrendingMemo;
  }
}
export const TRENDING_TTL_MS = 60_000;

async function trendingInstruments(ctx: Ctx): Promise<number[]> {
  const now = ctx.clock.now().getTime();
  const cached = ctx.trending.last;
  // A store with fewer trending instruments than the list holds is small: recomputing is cheap.
  if (cached && cached.ids.length === TRENDING_INSTRUMENTS && now - cached.at < TRENDING_TTL_MS) return cached.ids;
  const since = new Date(now - TRENDING_WINDOW_DAYS * 86_400_000).toISOString();
  const ids = await socialRepository(ctx.db.kysely).trendingInstruments(since, TRENDING_INSTRUMENTS);
  ctx.trending.last = { at: now, ids };
  return ids;
}

/** Why each for-you post is there: a followed owner first, else its trending instrument. */
async function reasonsFor(
  ctx: Ctx,
  me: string,
  page: readonly { id: string; ownerId: string }[],
  trending: readonly number[],
): Promise<Map<string, ReasonView | null>> {
  const repo = socialRepository(ctx.db.kysely);
  const owners = [...new Set(page.map((p) => p.ownerId))];
  const [followed, tags, users, instruments] = await Promise.all([
    repo.followees(me, owners),
    repo.tagsFor(page.map((p) => p.id)),
    resolveUserRefs(ctx, owners),
    findInstruments(ctx, trending),
  ]);
  const reasons = new Map<string, ReasonView | null>();
  for (const post of page) {
    const owner = users.get(post.ownerId);
    if (followed.has(post.ownerId) && owner) {
      reasons.set(post.id, { type: "followed-user", sourceId: String(owner.gcid), owner: owner.username });
      continue;
    }
    const tag = tags.find((t) => t.postId === post.id && trending.includes(t.instrumentId));
    const instrument = tag ? instruments.get(tag.instrumentId) : undefined;
    reasons.set(
      post.id,
      instrument
        ? { type: "instrument-trending", sourceId: String(instrument.instrumentId), owner: instrument.symbol }
        : null,
    );
  }
  return reasons;
}
