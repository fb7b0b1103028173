import type { KyselyPlugin } from "kysely";
import { expect } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import { seedDemoWorld } from "../../src/seed/seed.js";
import { type Harness, rid, type TestUser } from "../support/harness.js";

/**
 * The data the contract cases run against: the seeded demo world plus users and content made
 * through the API, so that every shape upstream describes (tags on each asset class, mentions,
 * both attachment kinds, polls, shares, comments with replies and likes, positions, watchlists)
 * appears in the answers the cases check.
 */

export const AAPL = 1001;
export const BTC = 100000;
export const EURUSD = 1;
export const OIL = 17;
export const GOLD = 18;
export const SPX500 = 27;
export const ETF = 3001;

const EVERY_SCOPE = [
  "feed:read",
  "feed:write",
  "watchlist:read",
  "watchlist:write",
  "demo:read",
  "demo:write",
  "trade.demo:read",
  "trade.demo:write",
  "notifications:read",
  "notifications:write",
  "user-info:read",
  "club:read",
  "price-alerts:read",
  "price-alerts:write",
  "agent-portfolio:write",
];

export interface Request {
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
  url: string;
  /** The caller (its key pair), or null for none. */
  as: TestUser | null;
  body?: unknown;
  /** A body sent as is (e.g. malformed JSON), with content-type application/json. */
  raw?: string;
  /** A multipart/form-data body (an upload): its bytes and content type. */
  multipart?: { payload: Buffer; headers: { "content-type": string } };
  /** Headers to send instead of a fresh x-request-id (e.g. none at all). */
  requestId?: string | null;
  /** The app to ask, when not the world's own (e.g. one whose store fails). */
  app?: App;
  /** An OAuth access token to send instead of a key pair (`as` null). */
  bearer?: string;
}

interface Post {
  id: string;
  metadata: { poll?: { id: number; options: { id: number }[] } };
}

interface Comment {
  entity: { id: string };
}

export interface World {
  h: Harness;
  /** Holds every scope; owns most content. */
  me: TestUser;
  /** Another author, followed by `me`. */
  other: TestUser;
  /** Holds only the read scopes (feed, watchlist, demo). */
  reader: TestUser;
  /** Blocks `me` after writing a post, a comment and a reply. */
  blocker: TestUser;
  myPost: Post;
  myPoll: Post;
  otherPost: Post;
  otherPoll: Post;
  blockerPost: Post;
  blockerComment: Comment;
  blockerReply: Comment;
  /** A comment of `other` on `otherPost`, with a reply of `me`. */
  otherComment: Comment;
  myReply: Comment;
  /** A watchlist of `me`, public, with items. */
  watchlistId: string;
  openOrderId: number;
  /** An app on the same store whose every query fails (the store is down). */
  failingApp: App;
  inject(r: Request): Promise<{ statusCode: number; body: string; json(): unknown }>;
  /** Sends `r` and expects `status`; returns the parsed body (null when empty). */
  ok<T = unknown>(r: Request, status?: number): Promise<T>;
  newPost(as: TestUser, message?: string): Promise<Post>;
  newComment(as: TestUser, postId: string, message?: string): Promise<Comment>;
  newReply(as: TestUser, postId: string, commentId: string): Promise<Comment>;
  newWatchlist(name: string): Promise<string>;
  openPosition(): Promise<{ positionId: number }>;
  close(): Promise<void>;
}

const image = (url: string) => ({
  url,
  title: "Chart",
  host: "charts.example.com",
  description: "Daily chart",
  mediaType: "Image",
  media: { image: { width: 800, height: 600, url } },
});
const link = { url: "https://news.example.com/markets/today", title: "Markets today", host: "news.example.com" };

/** Upstream's answer to a store it cannot reach is a 500; ours too (every query of this app fails). */
const storeDown: KyselyPlugin = {
  transformQuery: (args) => args.node,
  transformResult: async () => {
    throw new Error("the store is unavailable");
  },
};

export async function buildWorld(h: Harness): Promise<World> {
  await seedDemoWorld(h.deps);
  const me = await h.user(EVERY_SCOPE);
  const other = await h.user(["feed:read", "feed:write"]);
  const reader = await h.user(["feed:read", "watchlist:read", "demo:read", "notifications:read"]);
  const blocker = await h.user(["feed:read", "feed:write"]);

  const inject = (r: Request) => {
    const headers: Record<string, string> = {};
    if (r.as) {
      headers["x-api-key"] = r.as.headers["x-api-key"]!;
      headers["x-user-key"] = r.as.headers["x-user-key"]!;
    }
    if (r.bearer) headers.authorization = `Bearer ${r.bearer}`;
    const requestId = r.requestId === undefined ? rid() : r.requestId;
    if (requestId !== null) headers["x-request-id"] = requestId;
    if (r.raw !== undefined) headers["content-type"] = "application/json";
    if (r.multipart) headers["content-type"] = r.multipart.headers["content-type"];
    const payload = r.multipart?.payload ?? r.raw ?? (r.body as object | undefined);
    return (r.app ?? h.app).inject({
      method: r.method,
      url: r.url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
    });
  };
  const ok = async <T>(r: Request, status = 200): Promise<T> => {
    const res = await inject(r);
    expect(res.statusCode, `${r.method} ${r.url}: ${res.body}`).toBe(status);
    return (res.body === "" ? null : res.json()) as T;
  };

  const newPost = (as: TestUser, message = "A short note on $AAPL") =>
    ok<Post>(
      { method: "POST", url: "/api/v1/posts", as, body: { message, tags: { tags: [{ id: String(AAPL) }] } } },
      201,
    );
  const newComment = (as: TestUser, postId: string, message = "Good point") =>
    ok<Comment>({ method: "POST", url: `/api/v1/posts/${postId}/comments`, as, body: { message } }, 201);
  const newReply = (as: TestUser, postId: string, commentId: string) =>
    ok<Comment>(
      { method: "POST", url: `/api/v1/posts/${postId}/comments/${commentId}/replies`, as, body: { message: "Agreed" } },
      201,
    );
  const poll = (as: TestUser) =>
    ok<Post>(
      {
        method: "POST",
        url: "/api/v1/posts/polls",
        as,
        body: {
          message: "Where does gold go next?",
          poll: { title: "Gold by Friday", options: ["Up", "Down", "Flat"].map((text, i) => ({ text, index: i + 1 })) },
          attachments: [image("https://charts.example.com/gold.png")],
        },
      },
      201,
    );
  const newWatchlist = async (name: string) => {
    const body = await ok<{ watchlists: { watchlistId: string }[] }>(
      { method: "POST", url: `/api/v1/watchlists?name=${encodeURIComponent(name)}`, as: me },
      201,
    );
    return body.watchlists[0]!.watchlistId;
  };
  const openPosition = async () => {
    const body = await ok<{ orderForOpen: { orderID: number } }>({
      method: "POST",
      url: "/api/v1/trading/execution/demo/market-open-orders/by-amount",
      as: me,
      body: { InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 500 },
    });
    // An open order's position has the order's id (decision 0046).
    return { positionId: body.orderForOpen.orderID };
  };

  // Posts over every asset class, with mentions and both attachment kinds.
  const otherPost = await ok<Post>(
    {
      method: "POST",
      url: "/api/v1/feeds/post",
      as: other,
      body: {
        message: `Rotating from $AAPL into $BTC, @${me.user.username} what do you think?`,
        tags: { tags: [AAPL, BTC, ETF].map((id) => ({ id: String(id) })) },
        mentions: { mentions: [{ id: String(me.user.gcid), isDirect: true }] },
        attachments: [image("https://charts.example.com/aapl.png"), link],
      },
    },
    201,
  );
  const myPost = await ok<Post>(
    {
      method: "POST",
      url: "/api/v1/posts",
      as: me,
      body: {
        message: "Metals, energy, FX and indices: a week of rotation",
        tags: { tags: [EURUSD, OIL, GOLD, SPX500].map((id) => ({ id: String(id) })) },
        mentions: { mentions: [{ userName: other.user.username }] },
        attachments: [link],
      },
    },
    201,
  );
  const myPoll = await poll(me);
  const otherPoll = await poll(other);
  await ok(
    {
      method: "POST",
      url: `/api/v1/posts/${myPoll.id}/polls/${myPoll.metadata.poll!.id}/options/${myPoll.metadata.poll!.options[0]!.id}/votes`,
      as: other,
    },
    202,
  );
  // A reshare and a quote share of other's post.
  await ok(
    {
      method: "POST",
      url: "/api/v1/posts/shares",
      as: me,
      body: { message: "", sharedOriginDiscussion: otherPost.id },
    },
    201,
  );
  await ok(
    {
      method: "POST",
      url: "/api/v1/posts/shares",
      as: me,
      body: { message: "Worth a read", sharedOriginDiscussion: otherPost.id },
    },
    201,
  );
  // Comments with replies and likes, on both posts.
  const otherComment = await newComment(other, otherPost.id, "Tech first, crypto second");
  const myReply = await newReply(me, otherPost.id, otherComment.entity.id);
  await newComment(me, otherPost.id, "Interesting rotation");
  const myComment = await newComment(other, myPost.id, "Gold looks strong");
  await newReply(me, myPost.id, myComment.entity.id);
  await ok(
    { method: "POST", url: `/api/v1/posts/${otherPost.id}/comments/${otherComment.entity.id}/likes`, as: me },
    204,
  );
  await ok(
    {
      method: "POST",
      url: `/api/v1/posts/${otherPost.id}/comments/${otherComment.entity.id}/replies/${myReply.entity.id}/likes`,
      as: other,
    },
    204,
  );
  // Marks: likes both ways (a notification for me), a save, a pin, follows.
  await ok({ method: "POST", url: `/api/v1/posts/${otherPost.id}/likes`, as: me }, 204);
  await ok({ method: "POST", url: `/api/v1/posts/${myPost.id}/likes`, as: other }, 204);
  await ok({ method: "POST", url: `/api/v1/posts/${otherPost.id}/saves`, as: me }, 204);
  await ok({ method: "POST", url: `/api/v1/posts/${myPoll.id}/saves`, as: me }, 204);
  await ok({ method: "POST", url: `/api/v1/posts/${myPost.id}/pins`, as: me }, 204);
  await ok({ method: "POST", url: `/api/v1/posts/${otherPost.id}/follows`, as: me }, 204);
  await ok({ method: "POST", url: `/api/v1/users/${other.user.gcid}/follows`, as: me }, 204);

  // The blocker's content, then the block: `me` may no longer act on it (403).
  const blockerPost = await newPost(blocker, "Not for everyone");
  const blockerComment = await newComment(blocker, blockerPost.id);
  const blockerReply = await newReply(blocker, blockerPost.id, blockerComment.entity.id);
  await ok({ method: "POST", url: `/api/v1/users/${me.user.gcid}/blocks`, as: blocker }, 204);

  // Trading: a position closed (history), one open by amount and one by units.
  const closed = await openPosition();
  await ok({
    method: "POST",
    url: `/api/v1/trading/execution/demo/market-close-orders/positions/${closed.positionId}`,
    as: me,
    body: { InstrumentID: AAPL, UnitsToDeduct: null },
  });
  const open = await openPosition();
  await ok({
    method: "POST",
    url: "/api/v1/trading/execution/demo/market-open-orders/by-units",
    as: me,
    body: { InstrumentID: BTC, IsBuy: false, Leverage: 2, AmountInUnits: 0.01 },
  });

  // Watchlists: the builtins, and a public one with instruments of several classes.
  await ok({ method: "GET", url: "/api/v1/watchlists", as: me });
  const watchlistId = await newWatchlist("Contract");
  await ok(
    {
      method: "POST",
      url: `/api/v1/watchlists/${watchlistId}/items`,
      as: me,
      body: [AAPL, BTC, GOLD, EURUSD].map((itemId) => ({ itemId, itemType: "Instrument" })),
    },
    201,
  );
  await ok({ method: "PUT", url: `/api/v1/watchlists/${watchlistId}/visibility?isPublic=true`, as: me }, 204);

  const failingApp = await buildApp(h.config, {
    ...h.deps,
    db: { ...h.deps.db, kysely: h.deps.db.kysely.withPlugin(storeDown) },
  });

  return {
    h,
    me,
    other,
    reader,
    blocker,
    myPost,
    myPoll,
    otherPost,
    otherPoll,
    blockerPost,
    blockerComment,
    blockerReply,
    otherComment,
    myReply,
    watchlistId,
    openOrderId: open.positionId,
    failingApp,
    inject,
    ok,
    newPost,
    newComment,
    newReply,
    newWatchlist,
    openPosition,
    close: () => failingApp.close(),
  };
}
