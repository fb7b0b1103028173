import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Discussion, Post, PostAlt } from "../../src/modules/social/shared/social.schemas.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";
import { AAPL, BTC, client, RW } from "./helpers.js";

describe.each(engines())("social posts and polls on %s", (engine) => {
  let h: Harness;
  let alice: TestUser;
  let bob: TestUser;
  const c = client(() => h);
  beforeAll(async () => {
    h = await startHarness(engine);
    alice = await h.user(RW);
    bob = await h.user(RW);
  });
  afterAll(async () => h.close());

  it("POST feeds/post creates a discussion with tags, mentions and the alternate attachment form", async () => {
    const res = await c.call(alice, "POST", "/api/v1/feeds/post", {
      owner: alice.user.gcid,
      message: "Long $AAPL into earnings @bob",
      tags: {
        tags: [
          { name: "AAPL", id: String(AAPL) },
          { name: "BTC", id: String(BTC) },
        ],
      },
      mentions: { mentions: [{ userName: bob.user.username, id: String(bob.user.gcid), isDirect: true }] },
      attachments: [
        {
          url: "https://example.com/chart.png",
          title: "Chart",
          mediaType: "Image",
          media: { image: { width: 800, height: 600, url: "https://example.com/chart.png" } },
        },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const post = res.json();
    expectSchema(PostAlt, post);
    expect(post.type).toBe("Default");
    expect(post.editStatus).toBe("None");
    expect(post.isDeleted).toBe(false);
    expect(post.owner.id).toBe(String(alice.user.gcid));
    expect(post.owner.username).toBe(alice.user.username);
    expect(post.owner.avatar.svg.url).toBe(`/api/v1/avatars/users/${alice.user.gcid}/avatar.svg`);
    expect(post.tags.map((t: { market: { id: string } }) => t.market.id)).toEqual([String(AAPL), String(BTC)]);
    expect(post.tags[0].market.symbolName).toBe("AAPL");
    expect(post.mentions).toEqual([{ user: expect.objectContaining({ id: String(bob.user.gcid) }), isDirect: true }]);
    expect(post.attachments).toEqual([
      {
        type: "image",
        url: "https://example.com/chart.png",
        thumbnailUrl: "https://example.com/chart.png",
        host: "example.com",
        mediaType: "Image",
        media: { image: { width: 800, height: 600, url: "https://example.com/chart.png" } },
        metadata: { width: 800, height: 600, duration: 0 },
      },
    ]);
    expect(Number(post.obsoleteId)).toBeGreaterThan(0);
  });

  it("POST posts (the twin) answers the request attachment form; bodies are read case-insensitively", async () => {
    const res = await c.call(alice, "POST", "/api/v1/posts", {
      Message: "case does not matter",
      Attachments: [{ URL: "https://example.com/a", MediaType: "Link" }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const post = res.json();
    expectSchema(Post, post);
    expect(post.message.text).toBe("case does not matter");
    expect(post.attachments).toEqual([
      { url: "https://example.com/a", title: "", host: "example.com", description: "", mediaType: "Link", media: {} },
    ]);
  });

  it("refuses to post as someone else (403)", async () => {
    const res = await c.call(alice, "POST", "/api/v1/feeds/post", { owner: bob.user.gcid, message: "spoof" });
    expect(res.statusCode).toBe(403);
    expect(res.json().errorCode).toBe("Forbidden");
    expect(res.json().details).toEqual([
      { field: "body/owner", message: "Body field owner must be the caller's gcid, or be left out." },
    ]);
  });

  const field = async (url: string, payload: unknown) => {
    const res = await c.call(alice, "POST", url, payload);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errorCode).toBe("ValidationFailed");
    return (res.json().details as { field: string }[]).map((d) => d.field);
  };

  it.each([
    ["missing message", {}, "body/message"],
    ["empty message", { message: "   " }, "body/message"],
    ["text over 1000 characters", { message: "x".repeat(1001) }, "body/message"],
    ["tag on an unknown instrument", { message: "m", tags: { tags: [{ id: "999999999" }] } }, "body/tags/tags/0/id"],
    ["tag id that is not an instrument id", { message: "m", tags: { tags: [{ id: "AAPL" }] } }, "body/tags/tags/0/id"],
    [
      "mention of an unknown user",
      { message: "m", mentions: { mentions: [{ id: "987654321" }] } },
      "body/mentions/mentions/0/id",
    ],
    [
      "mention by unknown userName",
      { message: "m", mentions: { mentions: [{ userName: "nobody_here" }] } },
      "body/mentions/mentions/0/userName",
    ],
    ["attachment without url", { message: "m", attachments: [{ title: "t" }] }, "body/attachments/0/url"],
    [
      "attachment with a non-http url",
      { message: "m", attachments: [{ url: "javascript:alert(1)" }] },
      "body/attachments/0/url",
    ],
    [
      "attachment with an unknown mediaType",
      { message: "m", attachments: [{ url: "https://e.com", mediaType: "Hologram" }] },
      "body/attachments/0/mediaType",
    ],
  ])("POST posts: 422 for %s, naming the field", async (_name, payload, expected) => {
    expect(await field("/api/v1/posts", payload)).toContain(expected);
    expect(await field("/api/v1/feeds/post", payload)).toContain(expected);
  });

  it("names each problem the use case finds by its wire path, in one sentence", async () => {
    const res = await c.call(alice, "POST", "/api/v1/posts", {
      message: "m",
      tags: { tags: [{ id: "AAPL" }] },
      mentions: { mentions: [{ userName: "nobody_here" }] },
      attachments: [{ url: "javascript:alert(1)" }, { url: "https://e.com", mediaType: "Image" }],
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([
      { field: "body/attachments/0/url", message: "Body field attachments/0/url must be an absolute http(s) URL." },
      {
        field: "body/attachments/1/media/image",
        message: "Body field attachments/1/media/image is required when mediaType is Image.",
      },
      {
        field: "body/tags/tags/0/id",
        message: 'Body field tags/tags/0/id must be an instrument id (digits); got "AAPL".',
      },
      {
        field: "body/mentions/mentions/0/userName",
        message: 'Body field mentions/mentions/0/userName must name a user; no user is "nobody_here".',
      },
    ]);
    expect(res.json().errorMessage).toBe(
      "The request has 4 problems in body/attachments/0/url, body/attachments/1/media/image, body/tags/tags/0/id " +
        "and body/mentions/mentions/0/userName; see details.",
    );
  });

  it("accepts exactly 1000 characters (code points)", async () => {
    const res = await c.call(alice, "POST", "/api/v1/posts", { message: "é".repeat(1000) });
    expect(res.statusCode).toBe(201);
  });

  const poll = (p: Record<string, unknown>) => ({
    message: "Poll time",
    ...p,
    poll: {
      title: "Direction",
      options: [
        { text: "Up", index: 1 },
        { text: "Down", index: 2 },
      ],
      ...(p.poll as object),
    },
  });

  it.each([
    ["missing message", { message: undefined }, "body/message"],
    ["empty message", { message: "" }, "body/message"],
    ["message over 1000", { message: "y".repeat(1001) }, "body/message"],
    ["missing title", { poll: { title: undefined } }, "body/poll/title"],
    ["blank title", { poll: { title: "  " } }, "body/poll/title"],
    ["one option", { poll: { options: [{ text: "Only", index: 1 }] } }, "body/poll/options"],
    [
      "five options",
      { poll: { options: [1, 2, 3, 4, 5].map((i) => ({ text: `o${i}`, index: i })) } },
      "body/poll/options",
    ],
    [
      "duplicate index",
      {
        poll: {
          options: [
            { text: "a", index: 1 },
            { text: "b", index: 1 },
          ],
        },
      },
      "body/poll/options/1/index",
    ],
    [
      "index 0",
      {
        poll: {
          options: [
            { text: "a", index: 0 },
            { text: "b", index: 1 },
          ],
        },
      },
      "body/poll/options/0/index",
    ],
    ["missing options", { poll: { options: undefined } }, "body/poll/options"],
  ])("POST posts/polls: 422 for %s", async (_name, patch, expected) => {
    const payload = JSON.parse(JSON.stringify(poll(patch)));
    expect(await field("/api/v1/posts/polls", payload)).toContain(expected);
  });

  it("creates a poll with 1-based options in index order, zero votes", async () => {
    const res = await c.call(alice, "POST", "/api/v1/posts/polls", {
      message: "Which way?",
      poll: {
        title: "BTC by Friday",
        options: [
          { text: "Down", index: 2 },
          { text: "Up", index: 1 },
          { text: "Flat", index: 4 },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const post = res.json();
    expectSchema(Post, post);
    expect(post.type).toBe("Poll");
    expect(post.metadata.poll.title).toBe("BTC by Friday");
    expect(post.metadata.poll.gcid).toBe(alice.user.gcid);
    expect(post.metadata.poll.options.map((o: { index: number; text: string }) => [o.index, o.text])).toEqual([
      [1, "Up"],
      [2, "Down"],
      [4, "Flat"],
    ]);
    expect(
      post.metadata.poll.options.every(
        (o: { votesCount: number; isUserVoted: boolean }) => o.votesCount === 0 && !o.isUserVoted,
      ),
    ).toBe(true);
    expect(post.metadata.share).toBeUndefined();
  });

  it("GET posts/{postId}: the Discussion with comments preview, reactions paging and requester context", async () => {
    const post = await c.post(alice, { message: "read me" });
    const likers = [bob, ...(await Promise.all([1, 2, 3].map(() => h.user(RW))))];
    for (const u of likers) await c.ok(u, "POST", `/api/v1/posts/${post.id}/likes`, undefined, 204);
    for (const text of ["first", "second", "third"]) {
      await c.ok(bob, "POST", `/api/v1/posts/${post.id}/comments`, { message: text }, 201);
    }
    await c.ok(bob, "POST", `/api/v1/posts/${post.id}/saves`, undefined, 204);

    const d = await c.ok(bob, "GET", `/api/v1/posts/${post.id}?take=2`);
    expectSchema(Discussion, d);
    expect(d.id).toBe(post.id);
    expect(d.post.id).toBe(post.id);
    expect(d.commentsData.reactionPaging.totalCount).toBe(3);
    expect(
      d.commentsData.comments.map((x: { entity: { message: { text: string } } }) => x.entity.message.text),
    ).toEqual(["third", "second"]);
    expect(d.summary).toEqual({ totalCommentsAndReplies: 3, sharedCount: 0 });
    expect(d.emotionsData.like.paging.totalCount).toBe(4);
    expect(d.emotionsData.like.emotions).toHaveLength(4);
    expect(d.emotionsData.like.emotions[0].parent).toEqual({ id: post.id, obsoleteId: post.obsoleteId, type: "Post" });
    expect(d.requesterContext).toMatchObject({ isOwner: false, isLiking: true, isSaved: true, isPinned: false });

    const mine = await c.ok(alice, "GET", `/api/v1/posts/${post.id}?take=0`);
    expect(mine.commentsData.comments).toEqual([]);
    expect(mine.requesterContext).toMatchObject({ isOwner: true, isLiking: false, isSaved: false });
  });

  it("GET posts/{postId}: the reactions next link works, page after page", async () => {
    const post = await c.post(alice, { message: "popular" });
    const fans = await Promise.all(Array.from({ length: 13 }, () => h.user(RW)));
    for (const u of fans) await c.ok(u, "POST", `/api/v1/posts/${post.id}/likes`, undefined, 204);
    const d = await c.ok(alice, "GET", `/api/v1/posts/${post.id}`);
    expect(d.emotionsData.like.paging.totalCount).toBe(13);
    expect(d.emotionsData.like.emotions).toHaveLength(10);
    const seen = new Set<string>(d.emotionsData.like.emotions.map((e: { owner: { id: string } }) => e.owner.id));
    const next = d.emotionsData.like.paging.next;
    expect(next).toBe(`/api/v1/reactions/${post.id}/emotions?offset=10&take=10`);
    const more = await c.ok(alice, "GET", next);
    expect(more.emotions).toHaveLength(3);
    for (const e of more.emotions) seen.add(e.owner.id);
    expect(seen.size).toBe(13);
    expect(more.paging.next).toBe("");
  });

  it("GET posts/{postId} without credentials: the public view, no personal context", async () => {
    const post = await c.post(alice, { message: "public" });
    await c.ok(bob, "POST", `/api/v1/posts/${post.id}/likes`, undefined, 204);
    const res = await h.app.inject({ method: "GET", url: `/api/v1/posts/${post.id}` });
    expect(res.statusCode).toBe(200);
    const d = res.json();
    expectSchema(Discussion, d);
    expect(Object.values(d.requesterContext).every((v) => v === false)).toBe(true);
    expect(d.emotionsData.like.paging.totalCount).toBe(1);
  });

  it("GET posts/{postId}: 404 for an unknown id, 422 for a malformed one, 401 for bad credentials", async () => {
    expect((await c.call(alice, "GET", `/api/v1/posts/${randomUUID()}`)).statusCode).toBe(404);
    expect((await c.call(alice, "GET", "/api/v1/posts/not-a-uuid")).statusCode).toBe(422);
    const res = await h.app.inject({
      method: "GET",
      url: `/api/v1/posts/${randomUUID()}`,
      headers: { "x-api-key": "nope", "x-user-key": "nope" },
    });
    expect(res.statusCode).toBe(401);
    const noScope = await h.user(["watchlist:read"]);
    expect((await c.call(noScope, "GET", `/api/v1/posts/${randomUUID()}`)).statusCode).toBe(403);
  });

  it("serves the avatar SVG the profile points to", async () => {
    const res = await h.app.inject({ method: "GET", url: `/api/v1/avatars/users/${alice.user.gcid}/50x50.svg` });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("image/svg+xml");
    expect(res.body).toContain(">TU<");
    expect((await h.app.inject({ method: "GET", url: "/api/v1/avatars/users/99999999/50x50.svg" })).statusCode).toBe(
      404,
    );
  });
});
