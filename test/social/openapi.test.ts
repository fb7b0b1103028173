import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../support/harness.js";

/** Every social operation, by upstream's operationId where upstream has one. */
const OPERATIONS: [string, string, string][] = [
  ["post", "/api/v1/feeds/post", "createANewDiscussionPost"],
  ["post", "/api/v1/posts", "createANewDiscussionPost2"],
  ["post", "/api/v1/posts/polls", "createAPollPost"],
  ["get", "/api/v1/posts/{postId}", "getASinglePostById"],
  ["put", "/api/v1/posts/{postId}", "updateAnExistingPost"],
  ["delete", "/api/v1/posts/{postId}", "softDeleteAPost"],
  ["get", "/api/v1/feeds/saved", "getSavedFeed"],
  ["get", "/api/v1/feeds/instrument/{marketId}", "getInstrumentFeedPosts"],
  ["get", "/api/v1/feeds/markets/{marketId}", "getInstrumentFeedPosts2"],
  ["get", "/api/v1/feeds/user/{userId}", "getUserFeedPosts"],
  ["get", "/api/v1/feeds/users/{userId}", "getUserFeedPosts2"],
  ["get", "/api/v1/feeds/users/{userId}/pinned", "getUserPinnedFeedPosts"],
  ["get", "/api/v1/feeds/following", "getFollowingFeed"],
  ["get", "/api/v1/feeds/for-you", "getPersonalisedForYouFeed"],
  ["get", "/api/v1/feeds/news", "getNewsFeed"],
  ["post", "/api/v1/posts/{postId}/likes", "likePost"],
  ["delete", "/api/v1/posts/{postId}/saves", "unsaveAPost"],
  ["post", "/api/v1/posts/{postId}/pins", "pinPostUserSProfile"],
  ["post", "/api/v1/posts/{postId}/follows", "followAPost"],
  ["get", "/api/v1/posts/{postId}/comments", "listCommentsOnAPost"],
  ["post", "/api/v1/posts/{postId}/comments", "createACommentOnAPost"],
  ["put", "/api/v1/posts/{postId}/comments/{commentId}", "updateAComment"],
  ["delete", "/api/v1/posts/{postId}/comments/{commentId}", "softDeleteAComment"],
  ["post", "/api/v1/posts/{postId}/comments/{commentId}/likes", "likeAComment"],
  ["get", "/api/v1/posts/{postId}/comments/{commentId}/replies", "listRepliesOnAComment"],
  ["post", "/api/v1/posts/{postId}/comments/{commentId}/replies", "createAReply"],
  ["put", "/api/v1/posts/{postId}/comments/{commentId}/replies/{replyId}", "updateAReply"],
  ["delete", "/api/v1/posts/{postId}/comments/{commentId}/replies/{replyId}/likes", "unlikeAReply"],
  ["post", "/api/v1/posts/{postId}/polls/{pollId}/options/{optionId}/votes", "voteOnAPollOption"],
  ["delete", "/api/v1/posts/{postId}/polls/{pollId}/options/{optionId}/votes", "removeVotePollOption"],
  ["post", "/api/v1/posts/shares", "shareAPost"],
  ["get", "/api/v1/posts/{postId}/shares", "listSharesOfAPost"],
  ["get", "/api/v1/reactions/{entityId}/emotions", "listReactions"],
  ["post", "/api/v1/users/{userId}/follows", "followUser"],
  ["delete", "/api/v1/users/{userId}/blocks", "unblockUser"],
];

describe("the OpenAPI document describes every social operation", () => {
  let h: Harness;
  let doc: {
    paths: Record<
      string,
      Record<string, { operationId: string; security: unknown[]; responses: Record<string, unknown> }>
    >;
  };
  beforeAll(async () => {
    h = await startHarness("sqlite");
    doc = (await h.app.inject({ method: "GET", url: "/openapi.json" })).json();
  });
  afterAll(async () => h.close());

  it.each(OPERATIONS)("%s %s is %s, with its scopes and error statuses", (method, path, operationId) => {
    const op = doc.paths[path]?.[method];
    expect(op, `${method} ${path}`).toBeDefined();
    expect(op!.operationId).toBe(operationId);
    const scope = method === "get" ? "feed:read" : "feed:write";
    expect(JSON.stringify(op!.security)).toContain(`${h.config.scopePrefix}:${scope}`);
    expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(["401", "403", "422", "429"]));
  });

  it("GET posts/{postId} admits anonymous callers; feeds do not", () => {
    expect(doc.paths["/api/v1/posts/{postId}"]!.get!.security).toContainEqual({});
    expect(doc.paths["/api/v1/feeds/news"]!.get!.security).not.toContainEqual({});
  });
});
