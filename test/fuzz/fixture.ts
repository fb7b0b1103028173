import { KNOWN_SCOPES } from "../../src/core/scopes.js";
import { type Engine, type Harness, type Headers, rid, startHarness } from "../support/harness.js";
import type { Known } from "./requests.js";
import { type Operation, operationsOf } from "./requests.js";

/** How a fuzzed request authenticates. */
export type Credential = "all-scopes" | "bearer" | "no-scope" | "anonymous";
export const CREDENTIALS: Credential[] = ["all-scopes", "bearer", "no-scope", "anonymous"];

export interface Fixture {
  h: Harness;
  operations: Operation[];
  known: Known;
  headers: Record<Credential, Headers>;
  close(): Promise<void>;
}

const AAPL = 1001;

/**
 * A harness, the document's API operations, credentials (every scope, a bearer token with every
 * scope, a key pair with none of the API's scopes, nobody) and real resources for the parameters
 * that name them (a post, comment, reply, poll, watchlist, position, order, another user), so that
 * a request with one hostile value and every other value real reaches the database.
 */
export async function fuzzFixture(engine: Engine): Promise<Fixture> {
  const h = await startHarness(engine);
  const all = await h.user([...KNOWN_SCOPES]);
  const other = await h.user(["feed:read"]);
  const bearer = await h.bearer([...KNOWN_SCOPES]);
  const noScope = await h.user(["user-info:read"]);
  const headers: Record<Credential, Headers> = {
    "all-scopes": { "x-api-key": all.headers["x-api-key"]!, "x-user-key": all.headers["x-user-key"]! },
    bearer: { authorization: bearer.headers.authorization! },
    "no-scope": { "x-api-key": noScope.headers["x-api-key"]!, "x-user-key": noScope.headers["x-user-key"]! },
    anonymous: {},
  };
  const call = async (method: string, url: string, payload?: unknown) => {
    const res = await h.app.inject({
      method: method as "GET",
      url,
      headers: { ...headers["all-scopes"], "x-request-id": rid() },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
    if (res.statusCode >= 300) throw new Error(`fixture ${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const post = await call("POST", "/api/v1/posts", { message: "fuzz fixture" });
  const comment = await call("POST", `/api/v1/posts/${post.id}/comments`, { message: "a comment" });
  const reply = await call("POST", `/api/v1/posts/${post.id}/comments/${comment.entity.id}/replies`, {
    message: "a reply",
  });
  const poll = await call("POST", "/api/v1/posts/polls", {
    message: "a poll",
    poll: {
      title: "Up or down",
      options: [
        { text: "Up", index: 1 },
        { text: "Down", index: 2 },
      ],
    },
  });
  const watchlists = await call("POST", "/api/v1/watchlists?name=fuzz");
  const order = await call("POST", "/api/v1/trading/execution/demo/market-open-orders/by-amount", {
    InstrumentID: AAPL,
    IsBuy: true,
    Leverage: 1,
    Amount: 100,
  });
  const known: Known = {
    postId: [post.id, poll.id],
    entityId: [post.id, comment.entity.id],
    commentId: [comment.entity.id],
    replyId: [reply.entity.id],
    sharedOriginDiscussion: [post.id],
    pollId: [poll.metadata.poll.id],
    optionId: poll.metadata.poll.options.map((o: { id: number }) => o.id),
    watchlistId: watchlists.watchlists.map((w: { watchlistId: string }) => w.watchlistId),
    positionId: [order.orderForOpen.positionID],
    orderId: [order.orderForOpen.orderID],
    userId: [String(other.user.gcid), other.user.username, other.user.gcid],
    marketId: [String(AAPL), "AAPL"],
    instrumentId: [AAPL],
    InstrumentID: [AAPL],
    instrumentIds: [String(AAPL)],
    itemId: [AAPL],
    itemType: ["Instrument"],
    Leverage: [1],
    Amount: [100],
    owner: [all.user.gcid],
    url: ["https://example.com/a"],
  };
  const doc = (await h.app.inject({ method: "GET", url: "/openapi.json" })).json();
  return {
    h,
    operations: operationsOf(doc).filter((op) => op.path.startsWith("/api/")),
    known,
    headers,
    close: () => h.close(),
  };
}
