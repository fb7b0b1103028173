import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import { engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";
import { client, RW } from "./helpers.js";

/*
 * A post's new like or plain top-level comment is added to its kept documents (and a like to the
 * liker's kept marks) instead of their being built again (docs/decisions/0198). Through the real
 * app: after each write every reader is answered exactly what a server without the cache answers,
 * and the cache counts no miss, so the answers came from the patched parts. Likes cross the
 * preview's 10 (the oldest shown drops out, `next` appears); comments cross a take of 5, dropping
 * a comment with a reply (and their slots), while the commenter sees `isOwner` on their own.
 */
const TOKEN = "like-patches-test-token";

describe.each(engines())("likes and comments added to kept documents on %s", (engine) => {
  let h: Harness;
  let uncached: App;
  let alice: TestUser;
  let users: TestUser[];
  let post: string;
  const c = client(() => h);

  beforeAll(async () => {
    h = await startHarness(engine, { env: { METRICS: "on", METRICS_TOKEN: TOKEN } });
    const config = { ...h.config, readCache: { maxBytes: 0, maxAgeMs: 1 } };
    uncached = await buildApp(config, { ...h.deps, config });
    alice = await h.user(RW);
    users = [];
    for (let i = 0; i < 14; i++) users.push(await h.user(RW));
    post = (await c.post(alice, { message: "Liked by many — ünïcode too" })).id;
    const first = await c.ok(users[0]!, "POST", `/api/v1/posts/${post}/comments`, { message: "First!" }, 201);
    await c.ok(users[1]!, "POST", `/api/v1/posts/${post}/comments/${first.entity.id}/replies`, { message: "Re" }, 201);
    for (const u of users.slice(1, 4)) {
      await c.ok(u, "POST", `/api/v1/posts/${post}/comments`, { message: `Me too, ${u.user.username}` }, 201);
    }
    for (const u of users.slice(0, 9)) await c.ok(u, "POST", `/api/v1/posts/${post}/likes`, undefined, 204);
  });
  afterAll(async () => {
    await uncached?.close();
    await h?.close();
  });

  async function misses(): Promise<number> {
    const res = await h.app.inject({
      method: "GET",
      url: "/metrics",
      headers: { authorization: `Bearer ${TOKEN}`, "x-request-id": rid() },
    });
    const line = res.body.split("\n").find((l) => /^\w*read_cache_misses_total /.test(l));
    expect(line).toBeDefined();
    return Number(line!.split(" ")[1]);
  }

  /** Every reader of the post (anonymous, its owner, a liker and commenter, one who never writes). */
  const reads = (): [TestUser | null, string][] =>
    [null, alice, users[0]!, users[5]!, users[13]!].flatMap((who) =>
      [0, 5, 10].map((take) => [who, `/api/v1/posts/${post}?take=${take}`] as [TestUser | null, string]),
    );

  async function expectCoherent(after: string): Promise<void> {
    for (const [who, url] of reads()) {
      const headers = { ...(who ? who.headers : {}), "x-request-id": rid() };
      const cached = await h.app.inject({ method: "GET", url, headers });
      const fresh = await uncached.inject({ method: "GET", url, headers });
      expect(cached.statusCode, `${url} after ${after}`).toBe(200);
      expect(cached.body, `${url} as ${who?.user.username ?? "anonymous"} after ${after}`).toBe(fresh.body);
    }
  }

  it("answers every reader as an uncached server does after each like, from the patched parts", async () => {
    await expectCoherent("nine likes");
    // The coming likers have read the post before: their marks are kept.
    for (const u of users.slice(9, 13)) await c.ok(u, "GET", `/api/v1/posts/${post}?take=5`);
    for (const [i, u] of users.slice(9, 13).entries()) {
      const before = await misses();
      await c.ok(u, "POST", `/api/v1/posts/${post}/likes`, undefined, 204);
      await expectCoherent(`like ${10 + i}`);
      // The liker too reads the post: their marks were patched, not loaded again.
      const mine = await c.ok(u, "GET", `/api/v1/posts/${post}?take=5`);
      expect(mine.requesterContext.isLiking).toBe(true);
      expect(await misses(), `like ${10 + i}`).toBe(before);
    }
    const page = await c.ok(null, "GET", `/api/v1/posts/${post}?take=5`);
    expect(page.emotionsData.like.paging.totalCount).toBe(13);
    expect(page.emotionsData.like.emotions).toHaveLength(10);
    expect(page.emotionsData.like.emotions[0].owner.username).toBe(users[12]!.user.username);
    expect(page.emotionsData.like.paging.next).toContain("offset=10");
  });

  it("keeps every part as it is when a user likes a post twice", async () => {
    const before = await misses();
    await c.ok(users[12]!, "POST", `/api/v1/posts/${post}/likes`, undefined, 204);
    await expectCoherent("a second like by the same user");
    expect(await misses()).toBe(before);
  });

  it("builds the documents again on an unlike (the preview needs the like after the last shown)", async () => {
    await c.ok(users[12]!, "DELETE", `/api/v1/posts/${post}/likes`, undefined, 204);
    const before = await misses();
    await expectCoherent("an unlike");
    expect(await misses()).toBeGreaterThan(before);
    await c.ok(users[12]!, "POST", `/api/v1/posts/${post}/likes`, undefined, 204);
    await expectCoherent("a like again after the unlike");
  });

  it("adds a plain top-level comment in place, past the take, and its owner sees it as theirs", async () => {
    for (const u of [users[4]!, users[5]!, users[4]!]) {
      const before = await misses();
      const text = `"isOwner":false \\ ünïcode ${u.user.username}`;
      await c.ok(u, "POST", `/api/v1/posts/${post}/comments`, { message: text }, 201);
      await expectCoherent(`a comment by ${u.user.username}`);
      // One rebuild: the take=0 document shows no comment, so it cannot tell whether it counts this one.
      expect(await misses(), `a comment by ${u.user.username}`).toBe(before + 1);
    }
    const page = await c.ok(users[4]!, "GET", `/api/v1/posts/${post}?take=5`);
    expect(page.commentsData.reactionPaging.totalCount).toBe(7);
    expect(page.summary.totalCommentsAndReplies).toBe(8);
    expect(page.commentsData.comments).toHaveLength(5);
    expect(page.commentsData.comments[0].requesterContext.isOwner).toBe(true);
    expect(page.commentsData.comments[1].requesterContext.isOwner).toBe(false);
  });

  it("patches a post's first like and its first comments, at takes 0, 1 and 5", async () => {
    const fresh = (await c.post(alice, { message: "Fresh — ü 😀" })).id;
    const readers = [null, alice, users[2]!, users[9]!];
    const urls = [0, 1, 5].map((take) => `/api/v1/posts/${fresh}?take=${take}`);
    const coherent = async (after: string) => {
      for (const who of readers) {
        for (const url of urls) {
          const headers = { ...(who ? who.headers : {}), "x-request-id": rid() };
          const cached = await h.app.inject({ method: "GET", url, headers });
          const uncachedBody = (await uncached.inject({ method: "GET", url, headers })).body;
          expect(cached.body, `${url} as ${who?.user.username ?? "anonymous"} after ${after}`).toBe(uncachedBody);
        }
      }
    };
    await coherent("nothing yet");

    let before = await misses();
    await c.ok(users[2]!, "POST", `/api/v1/posts/${fresh}/likes`, undefined, 204);
    await coherent("the first like");
    expect(await misses(), "the first like").toBe(before);
    const liked = (await c.ok(null, "GET", urls[0]!)).emotionsData.like;
    expect(liked.emotions).toHaveLength(1);
    expect(liked.paging).toEqual({ totalCount: 1, offsetEntityId: liked.emotions[0].id, next: "" });

    before = await misses();
    await c.ok(users[9]!, "POST", `/api/v1/posts/${fresh}/comments`, { message: "First ü 😀" }, 201);
    await coherent("the first comment");
    // Every take, take 0 too: with no comment counted before, the document cannot already count it.
    expect(await misses(), "the first comment").toBe(before);

    before = await misses();
    await c.ok(users[2]!, "POST", `/api/v1/posts/${fresh}/comments`, { message: "Second" }, 201);
    await coherent("the second comment");
    // Take 0 is built again (it shows no comment); take 1 drops the first for the second.
    expect(await misses(), "the second comment").toBe(before + 1);
    const [shown, ...more] = (await c.ok(users[2]!, "GET", urls[1]!)).commentsData.comments;
    expect(more).toEqual([]);
    expect(shown.entity.message.text).toBe("Second");
    expect(shown.requesterContext.isOwner).toBe(true);
  });

  it("patches a post's feed documents on its likes and comments, past both previews (0210)", async () => {
    const owner = await h.user(RW);
    const fresh = (await c.post(owner, { message: "In feeds — ü 😀" })).id;
    const readers = [alice, users[2]!, users[9]!, users[11]!];
    const urls = [2, 10].map((size) => `/api/v1/feeds/user/${owner.user.gcid}?take=5&reactionsPageSize=${size}`);
    const coherent = async (after: string) => {
      for (const who of readers) {
        for (const url of urls) {
          const headers = { ...who.headers, "x-request-id": rid() };
          const cached = await h.app.inject({ method: "GET", url, headers });
          const uncachedBody = (await uncached.inject({ method: "GET", url, headers })).body;
          expect(cached.statusCode, `${url} after ${after}`).toBe(200);
          expect(cached.body, `${url} as ${who.user.username} after ${after}`).toBe(uncachedBody);
        }
      }
    };
    await coherent("nothing yet");
    // Three likes cross a preview of two (the third drops the oldest), three comments the feed's two.
    const writes: [string, TestUser, string, unknown, number][] = [
      ["like 1", users[2]!, "likes", undefined, 204],
      ["like 2", users[9]!, "likes", undefined, 204],
      ["like 3", users[11]!, "likes", undefined, 204],
      ["comment 1", users[9]!, "comments", { message: "First ü 😀" }, 201],
      ["comment 2", users[2]!, "comments", { message: '"isOwner":false' }, 201],
      ["comment 3", users[11]!, "comments", { message: "Third" }, 201],
    ];
    for (const [what, who, path, body, status] of writes) {
      const before = await misses();
      await c.ok(who, "POST", `/api/v1/posts/${fresh}/${path}`, body, status);
      await coherent(what);
      expect(await misses(), what).toBe(before);
    }
    const [page] = (await c.ok(users[11]!, "GET", urls[0]!)).discussions;
    expect(page.emotionsData.like.emotions.map((e: { owner: { username: string } }) => e.owner.username)).toEqual([
      users[11]!.user.username,
      users[9]!.user.username,
    ]);
    expect(
      page.commentsData.comments.map((x: { entity: { message: { text: string } } }) => x.entity.message.text),
    ).toEqual(["Third", '"isOwner":false']);
    expect(page.commentsData.comments[0].requesterContext.isOwner).toBe(true);
  });

  it("builds the documents again for a reply or a comment with a mention", async () => {
    const [top] = (await c.ok(null, "GET", `/api/v1/posts/${post}?take=5`)).commentsData.comments;
    for (const [what, url, message] of [
      ["a reply", `/api/v1/posts/${post}/comments/${top.entity.id}/replies`, "A reply"],
      ["a mention", `/api/v1/posts/${post}/comments`, `Hey @${alice.user.username}`],
    ]) {
      await c.ok(users[6]!, "POST", url!, { message }, 201);
      const before = await misses();
      await expectCoherent(what!);
      expect(await misses(), what).toBeGreaterThan(before);
    }
  });

  it("answers a new comment or reply with the item a read then shows, built without reading it back", async () => {
    const other = await c.post(alice, { message: "Answers" });
    const top = await c.ok(users[7]!, "POST", `/api/v1/posts/${other.id}/comments`, { message: "Top ü" }, 201);
    const repliesUrl = `/api/v1/posts/${other.id}/comments/${top.entity.id}/replies`;
    const reply = await c.ok(users[8]!, "POST", repliesUrl, { message: "Reply" }, 201);
    const mention = `With @${alice.user.username}`;
    const mentioning = await c.ok(users[8]!, "POST", `/api/v1/posts/${other.id}/comments`, { message: mention }, 201);
    const shown = async (who: TestUser, url: string, id: string) =>
      (await c.ok(who, "GET", url)).comments.find((x: { entity: { id: string } }) => x.entity.id === id);
    const comments = `/api/v1/posts/${other.id}/comments?take=100`;
    expect(top.requesterContext.isOwner).toBe(true);
    expect(reply.entity.parent).toEqual({ id: top.entity.id, obsoleteId: top.entity.obsoleteId, type: "Comment" });
    // The reply under the comment, as its commenter sees it: not theirs.
    const replied = { ...reply, requesterContext: { ...reply.requesterContext, isOwner: false } };
    expect(await shown(users[7]!, comments, top.entity.id)).toEqual({ ...top, repliesCount: 1, replies: [replied] });
    expect(await shown(users[8]!, repliesUrl, reply.entity.id)).toEqual(reply);
    expect(await shown(users[8]!, comments, mentioning.entity.id)).toEqual(mentioning);
  });
});
