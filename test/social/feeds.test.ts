import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withActor } from "../../src/modules/context.js";
import { readFeed } from "../../src/modules/social/feeds/read-feed.js";
import { FeedPage, FeedPageAlt } from "../../src/modules/social/shared/social.schemas.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";
import { AAPL, BTC, client, countingQueries, RW } from "./helpers.js";

const FEEDS = (gcid: number) => [
  "/api/v1/feeds/saved",
  `/api/v1/feeds/instrument/${AAPL}`,
  `/api/v1/feeds/markets/${AAPL}`,
  `/api/v1/feeds/user/${gcid}`,
  `/api/v1/feeds/users/${gcid}`,
  `/api/v1/feeds/users/${gcid}/pinned`,
  "/api/v1/feeds/following",
  "/api/v1/feeds/for-you",
  "/api/v1/feeds/news",
];

const ids = (page: { discussions: { id: string }[] }) => page.discussions.map((d) => d.id);

describe.each(engines())("social feeds on %s", (engine) => {
  let h: Harness;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  const c = client(() => h);
  beforeAll(async () => {
    h = await startHarness(engine);
    alice = await h.user(RW);
    bob = await h.user(RW);
    carol = await h.user(RW);
  });
  afterAll(async () => h.close());

  it.each([
    ["take=0", "querystring/take"],
    ["take=101", "querystring/take"],
    ["offset=-1", "querystring/offset"],
    ["reactionsPageSize=0", "querystring/reactionsPageSize"],
    ["reactionsPageSize=51", "querystring/reactionsPageSize"],
    ["take=abc", "querystring/take"],
  ])("422 for %s on every paged feed", async (query, fieldName) => {
    for (const url of FEEDS(alice.user.gcid).filter((u) => !u.endsWith("/pinned"))) {
      const res = await c.call(alice, "GET", `${url}?${query}`);
      expect(res.statusCode, `${url} ${res.body}`).toBe(422);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(fieldName);
    }
  });

  it("the user feed pages with working next links, offSet and take, and every bound is accepted", async () => {
    const u = await h.user(RW);
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await c.post(u, { message: `post ${i}` })).id);
    const seen: string[] = [];
    let url = `/api/v1/feeds/users/${u.user.gcid}?take=3`;
    const offsets: number[] = [];
    while (url) {
      const page = await c.ok(alice, "GET", url);
      expectSchema(FeedPage, page);
      expect(page.paging.take).toBe(3);
      expect(page.paging.version).toBe("v1");
      offsets.push(page.paging.offSet);
      seen.push(...ids(page));
      url = page.paging.next;
    }
    expect(offsets).toEqual([0, 3, 6]);
    expect(seen).toEqual([...made].reverse());
    for (const q of [
      "take=1",
      "take=100",
      "offset=0",
      "reactionsPageSize=1",
      "reactionsPageSize=50",
      "badgesExperimentIsEnabled=true",
    ]) {
      expect((await c.call(alice, "GET", `/api/v1/feeds/users/${u.user.gcid}?${q}`)).statusCode).toBe(200);
    }
    const alias = await c.ok(alice, "GET", `/api/v1/feeds/user/${u.user.username}?take=5&requesterUserId=whatever`);
    expect(ids(alias)).toEqual([...made].reverse().slice(0, 5));
    expect(alias.paging.next).toBe(`/api/v1/feeds/user/${u.user.gcid}?offset=5&take=5&reactionsPageSize=10`);
    const badges = await c.ok(alice, "GET", `/api/v1/feeds/users/${u.user.gcid}?take=5&badgesExperimentIsEnabled=true`);
    expect(badges.paging.next).toBe(
      `/api/v1/feeds/users/${u.user.gcid}?offset=5&take=5&reactionsPageSize=10&badgesExperimentIsEnabled=true`,
    );
  });

  it("the instrument feed: tagged posts only, alternate attachment form, plain-string type; markets/ is the request form", async () => {
    const tagged = await c.post(bob, {
      message: "BTC breaking out",
      tags: { tags: [{ id: String(BTC) }] },
      attachments: [
        {
          url: "https://example.com/x.png",
          mediaType: "Image",
          media: { image: { width: 1, height: 2, url: "https://example.com/x.png" } },
        },
      ],
    });
    const untagged = await c.post(bob, { message: "no tag" });
    const page = await c.ok(alice, "GET", `/api/v1/feeds/instrument/${BTC}`);
    expectSchema(FeedPageAlt, page);
    expect(ids(page)).toContain(tagged.id);
    expect(ids(page)).not.toContain(untagged.id);
    const d = page.discussions.find((x: { id: string }) => x.id === tagged.id);
    expect(d.post.attachments[0]).toMatchObject({
      type: "image",
      thumbnailUrl: "https://example.com/x.png",
      metadata: { width: 1, height: 2, duration: 0 },
    });
    const markets = await c.ok(alice, "GET", `/api/v1/feeds/markets/${BTC}`);
    expectSchema(FeedPage, markets);
    expect(markets.discussions.find((x: { id: string }) => x.id === tagged.id).post.attachments[0]).toMatchObject({
      mediaType: "Image",
      title: "",
    });
    expect((await c.call(alice, "GET", "/api/v1/feeds/markets/999999999")).statusCode).toBe(404);
    expect((await c.call(alice, "GET", "/api/v1/feeds/markets/AAPL")).statusCode).toBe(422);
    expect((await c.call(alice, "GET", "/api/v1/feeds/users/no_such_user_x")).statusCode).toBe(404);
  });

  it("never shows deleted or spam posts, in any feed", async () => {
    const u = await h.user(RW);
    const kept = await c.post(u, { message: "kept", tags: { tags: [{ id: String(AAPL) }] } });
    const deleted = await c.post(u, { message: "deleted", tags: { tags: [{ id: String(AAPL) }] } });
    const spam = await c.post(u, { message: "spam", tags: { tags: [{ id: String(AAPL) }] } });
    for (const p of [kept, deleted, spam]) {
      await c.ok(u, "POST", `/api/v1/posts/${p.id}/pins`, undefined, 204);
      await c.ok(alice, "POST", `/api/v1/posts/${p.id}/saves`, undefined, 204);
    }
    await c.ok(alice, "POST", `/api/v1/users/${u.user.gcid}/follows`, undefined, 204);
    await c.ok(u, "DELETE", `/api/v1/posts/${deleted.id}`, undefined, 204);
    await h.deps.db.kysely.updateTable("posts").set({ isSpam: 1 }).where("id", "=", spam.id).execute();
    for (const url of FEEDS(u.user.gcid)) {
      const page = await c.ok(alice, "GET", url);
      expect(ids(page), url).not.toContain(deleted.id);
      expect(ids(page), url).not.toContain(spam.id);
    }
    for (const url of [
      `/api/v1/feeds/users/${u.user.gcid}`,
      `/api/v1/feeds/users/${u.user.gcid}/pinned`,
      "/api/v1/feeds/saved",
      "/api/v1/feeds/following",
      `/api/v1/feeds/markets/${AAPL}`,
    ]) {
      expect(ids(await c.ok(alice, "GET", url)), url).toContain(kept.id);
    }
    const tombstone = await c.ok(alice, "GET", `/api/v1/posts/${deleted.id}`);
    expect(tombstone.post.isDeleted).toBe(true);
    expect(tombstone.post.message.text).toBe("");
    expect((await c.call(alice, "GET", `/api/v1/posts/${spam.id}`)).statusCode).toBe(404);
  });

  it("private profiles: their posts reach only their owner", async () => {
    const shy = await h.user(RW);
    await h.deps.db.kysely.updateTable("users").set({ isPrivate: 1 }).where("id", "=", shy.user.id).execute();
    const secret = await c.post(shy, { message: "private thoughts", tags: { tags: [{ id: String(AAPL) }] } });
    await c.ok(alice, "POST", `/api/v1/users/${shy.user.gcid}/follows`, undefined, 204);
    for (const url of [
      `/api/v1/feeds/users/${shy.user.gcid}`,
      "/api/v1/feeds/news",
      "/api/v1/feeds/following",
      `/api/v1/feeds/markets/${AAPL}`,
    ]) {
      expect(ids(await c.ok(alice, "GET", url)), url).not.toContain(secret.id);
    }
    expect((await c.call(alice, "GET", `/api/v1/posts/${secret.id}`)).statusCode).toBe(404);
    expect((await h.app.inject({ method: "GET", url: `/api/v1/posts/${secret.id}` })).statusCode).toBe(404);
    expect(ids(await c.ok(shy, "GET", `/api/v1/feeds/users/${shy.user.gcid}`))).toEqual([secret.id]);
    expect((await c.call(alice, "POST", `/api/v1/posts/${secret.id}/likes`)).statusCode).toBe(404);
  });

  it("blocks: neither side sees the other's posts; interactions across the block are refused", async () => {
    const blocker = await h.user(RW);
    const blocked = await h.user(RW);
    const a = await c.post(blocker, { message: "from blocker" });
    const b = await c.post(blocked, { message: "from blocked" });
    await c.ok(blocked, "POST", `/api/v1/users/${blocker.user.gcid}/follows`, undefined, 204);
    await c.ok(blocker, "POST", `/api/v1/users/${blocked.user.gcid}/blocks`, undefined, 204);
    expect(ids(await c.ok(blocked, "GET", "/api/v1/feeds/news?take=100"))).not.toContain(a.id);
    expect(ids(await c.ok(blocker, "GET", "/api/v1/feeds/news?take=100"))).not.toContain(b.id);
    expect(ids(await c.ok(blocked, "GET", `/api/v1/feeds/users/${blocker.user.gcid}`))).toEqual([]);
    // the block ended the follow
    expect(ids(await c.ok(blocked, "GET", "/api/v1/feeds/following"))).toEqual([]);
    const like = await c.call(blocked, "POST", `/api/v1/posts/${a.id}/likes`);
    expect(like.statusCode).toBe(403);
    expect((await c.call(blocked, "POST", `/api/v1/users/${blocker.user.gcid}/follows`)).statusCode).toBe(403);
    // others still see both
    const news = ids(await c.ok(carol, "GET", "/api/v1/feeds/news?take=100"));
    expect(news).toEqual(expect.arrayContaining([a.id, b.id]));
    await c.ok(blocker, "DELETE", `/api/v1/users/${blocked.user.gcid}/blocks`, undefined, 204);
    expect(ids(await c.ok(blocked, "GET", `/api/v1/feeds/users/${blocker.user.gcid}`))).toEqual([a.id]);
  });

  it("the saved feed only ever shows the caller's own saves, newest save first", async () => {
    const u1 = await h.user(RW);
    const u2 = await h.user(RW);
    const p1 = await c.post(alice, { message: "s1" });
    const p2 = await c.post(alice, { message: "s2" });
    const p3 = await c.post(alice, { message: "s3" });
    await c.ok(u1, "POST", `/api/v1/posts/${p2.id}/saves`, undefined, 204);
    await c.ok(u1, "POST", `/api/v1/posts/${p1.id}/saves`, undefined, 204);
    await c.ok(u1, "POST", `/api/v1/posts/${p1.id}/saves`, undefined, 204);
    await c.ok(u2, "POST", `/api/v1/posts/${p3.id}/saves`, undefined, 204);
    const page = await c.ok(u1, "GET", "/api/v1/feeds/saved");
    expect(ids(page)).toEqual([p1.id, p2.id]);
    expect(page.discussions.every((d: { requesterContext: { isSaved: boolean } }) => d.requesterContext.isSaved)).toBe(
      true,
    );
    expect(ids(await c.ok(u2, "GET", "/api/v1/feeds/saved"))).toEqual([p3.id]);
    await c.ok(u1, "DELETE", `/api/v1/posts/${p2.id}/saves`, undefined, 204);
    expect(ids(await c.ok(u1, "GET", "/api/v1/feeds/saved"))).toEqual([p1.id]);
  });

  it("following, for-you (with reasons) and pinned", async () => {
    const me = await h.user(RW);
    const star = await h.user(RW);
    const stranger = await h.user(RW);
    const s1 = await c.post(star, { message: "star post" });
    const t1 = await c.post(stranger, { message: "trending", tags: { tags: [{ id: String(AAPL) }] } });
    const quiet = await c.post(stranger, { message: "untagged, unfollowed" });
    await c.ok(me, "POST", `/api/v1/users/${star.user.gcid}/follows`, undefined, 204);
    expect(ids(await c.ok(me, "GET", "/api/v1/feeds/following"))).toEqual([s1.id]);

    const forYou = await c.ok(me, "GET", "/api/v1/feeds/for-you?take=100");
    expectSchema(FeedPage, forYou);
    const byId = new Map(forYou.discussions.map((d: { id: string }) => [d.id, d]));
    expect((byId.get(s1.id) as { reason: unknown }).reason).toEqual({
      type: "followed-user",
      sourceId: String(star.user.gcid),
      owner: star.user.username,
    });
    expect((byId.get(t1.id) as { reason: unknown }).reason).toEqual({
      type: "instrument-trending",
      sourceId: String(AAPL),
      owner: "AAPL",
    });
    expect(byId.has(quiet.id)).toBe(false);
    expect(forYou.metadata.streamType).toBe("ForYou");

    const s2 = await c.post(star, { message: "pin me later" });
    await c.ok(star, "POST", `/api/v1/posts/${s1.id}/pins`, undefined, 204);
    await c.ok(star, "POST", `/api/v1/posts/${s2.id}/pins`, undefined, 204);
    const pinned = await c.ok(me, "GET", `/api/v1/feeds/users/${star.user.gcid}/pinned`);
    expect(ids(pinned)).toEqual([s2.id, s1.id]);
    expect(pinned.paging.next).toBe("");
    expect((await c.call(me, "POST", `/api/v1/posts/${s1.id}/pins`)).statusCode).toBe(403);
    expect(ids(await c.ok(me, "GET", `/api/v1/feeds/users/${me.user.gcid}/pinned`))).toEqual([]);
  });

  it("each feed discussion carries its newest comments inline, without their replies", async () => {
    const post = await c.post(alice, { message: "inline comments", tags: { tags: [{ id: String(AAPL) }] } });
    const texts: string[] = [];
    for (const text of ["first", "second", "third"]) {
      texts.push(text);
      await c.ok(bob, "POST", `/api/v1/posts/${post.id}/comments`, { message: text }, 201);
    }
    const third = (await c.ok(bob, "GET", `/api/v1/posts/${post.id}/comments`)).comments[0];
    await c.ok(carol, "POST", `/api/v1/posts/${post.id}/comments/${third.entity.id}/replies`, { message: "re" }, 201);

    for (const url of [`/api/v1/feeds/users/${alice.user.gcid}`, `/api/v1/feeds/instrument/${AAPL}`]) {
      const page = await c.ok(carol, "GET", url);
      const d = page.discussions.find((x: { id: string }) => x.id === post.id);
      expect(d.commentsData.reactionPaging.totalCount, url).toBe(3);
      expect(d.summary.totalCommentsAndReplies, url).toBe(4);
      const inline = d.commentsData.comments;
      expect(
        inline.map((x: { entity: { message: { text: string } } }) => x.entity.message.text),
        url,
      ).toEqual(["third", "second"]);
      expect(inline[0].repliesCount).toBe(1);
      expect(inline[0].replies).toEqual([]);
      expect(inline[0].requesterContext).toEqual({ isOwner: false, isLiking: false, isFlaggingAsSpam: false });
    }
  });

  it("a feed page takes a bounded number of queries, whatever it holds", async () => {
    const author = await h.user(RW);
    const fans = await Promise.all([1, 2, 3].map(() => h.user(RW)));
    for (let i = 0; i < 20; i++) {
      const p =
        i % 4 === 0
          ? await c.poll(author)
          : await c.post(author, {
              message: `p${i}`,
              tags: { tags: [{ id: String(AAPL) }] },
              mentions: { mentions: [{ id: String(bob.user.gcid) }] },
            });
      for (const f of fans) {
        await c.ok(f, "POST", `/api/v1/posts/${p.id}/likes`, undefined, 204);
        await c.ok(f, "POST", `/api/v1/posts/${p.id}/comments`, { message: `nice @${bob.user.username}` }, 201);
      }
      if (i % 5 === 0)
        await c.ok(fans[0]!, "POST", "/api/v1/posts/shares", { message: "", sharedOriginDiscussion: p.id }, 201);
    }
    const counted = countingQueries(h.deps);
    const read = async (take: number) => {
      counted.take();
      const page = await readFeed(
        withActor(counted.deps, alice.actor),
        { feed: "user", userId: String(author.user.gcid), alias: false },
        { take, offset: 0, reactionsPageSize: 10 },
      );
      return { n: page.view.discussions.length, queries: counted.take() };
    };
    // Both pages hold discussions, polls, shares, tags, mentions, comments and likes. A first read
    // fills the per-store instrument catalog cache, so both counted reads meet the same cache.
    await read(20);
    const eight = await read(8);
    const twenty = await read(20);
    expect(eight.n).toBe(8);
    expect(twenty.n).toBe(20);
    expect(twenty.queries).toBe(eight.queries);
    expect(twenty.queries).toBeLessThanOrEqual(30);
    // Resolving the user (by gcid, by name), the page, its figures and requester flags, likes, tags
    // and mentions, polls, users and blocks (docs/decisions/0079), the inline comments and their
    // figures (0083); like counts and previews are two statements since 0193.
    expect(twenty.queries).toBeLessThanOrEqual(12);
  });
});

describe("the feed group's shared quota", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("sqlite", { rateLimits: "defaults" });
  });
  afterAll(async () => h.close());

  it("the nine feed GETs share one 60/60 s budget, apart from the default pool", async () => {
    const u = await h.user(RW);
    const urls = FEEDS(u.user.gcid);
    for (let i = 0; i < 60; i++) {
      const res = await client(() => h).call(u, "GET", urls[i % urls.length]!);
      expect(res.statusCode, `${urls[i % urls.length]} ${res.body}`).toBe(200);
    }
    const over = await client(() => h).call(u, "GET", "/api/v1/feeds/news");
    expect(over.statusCode).toBe(429);
    expect(over.headers["retry-after"]).toBeDefined();
    const other = await client(() => h).call(u, "GET", "/api/v1/notifications/messages");
    expect(other.statusCode).not.toBe(429);
  });
});
