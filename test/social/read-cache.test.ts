import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type App, buildApp } from "../../src/app.js";
import { engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";
import { AAPL, client, type PollPost, RW } from "./helpers.js";

/*
 * The read cache must never be seen: after any social write, every cached read answers exactly
 * what a server without the cache answers (a second app on the same store, READ_CACHE_MB=0).
 */
describe.each(engines())("the social read cache on %s", (engine) => {
  let h: Harness;
  let uncached: App;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let post: string;
  let poll: PollPost;
  let share: string;
  let comment: string;
  let reply: string;
  /** Made by the writes below (a comment on the poll, a share of the poll). */
  let pollComment = "none";
  let pollShare: string | undefined;
  const c = client(() => h);

  beforeAll(async () => {
    h = await startHarness(engine);
    const config = { ...h.config, readCache: { maxBytes: 0, maxAgeMs: 1 } };
    uncached = await buildApp(config, { ...h.deps, config });
    // user-info:write: the writes below include privacy changes.
    const scopes = [...RW, "user-info:write"];
    [alice, bob, carol] = [await h.user(scopes), await h.user(scopes), await h.user(scopes)];
    post = (await c.post(alice, { message: "AAPL into earnings", tags: { tags: [{ id: String(AAPL) }] } })).id;
    poll = await c.poll(alice, ["Up", "Down", "Flat"]);
    comment = (await c.ok(bob, "POST", `/api/v1/posts/${post}/comments`, { message: "Agreed" }, 201)).entity.id;
    reply = (await c.ok(carol, "POST", `/api/v1/posts/${post}/comments/${comment}/replies`, { message: "Not me" }, 201))
      .entity.id;
    share = (
      await c.ok(bob, "POST", "/api/v1/posts/shares", { message: "Worth a read", sharedOriginDiscussion: post }, 201)
    ).id;
  });
  afterAll(async () => {
    await uncached?.close();
    await h?.close();
  });

  /** Every cached read, as each of its kinds of caller sees it. */
  function reads(): [TestUser | null, string][] {
    const out: [TestUser | null, string][] = [];
    for (const who of [alice, bob, carol, null]) {
      for (const id of [post, poll.id, share, ...(pollShare ? [pollShare] : [])]) {
        out.push([who, `/api/v1/posts/${id}?take=5`]);
      }
    }
    for (const who of [alice, bob, carol]) {
      for (const feed of [
        `instrument/${AAPL}`,
        `markets/${AAPL}?take=2`,
        `users/${alice.user.gcid}`,
        `users/${alice.user.gcid}/pinned`,
        `user/${bob.user.gcid}?take=3`,
        "news?take=2&offset=1",
        "saved",
        "following",
        "for-you",
        "news?take=5&reactionsPageSize=2",
      ]) {
        out.push([who, `/api/v1/feeds/${feed}`]);
      }
    }
    return out;
  }

  async function expectCoherent(after: string) {
    for (const [who, url] of reads()) {
      const headers = { ...(who ? who.headers : {}), "x-request-id": rid() };
      const cached = await h.app.inject({ method: "GET", url, headers });
      const fresh = await uncached.inject({ method: "GET", url, headers });
      const label = `${url} as ${who?.user.username ?? "anonymous"} after ${after}`;
      expect(cached.statusCode, label).toBe(fresh.statusCode);
      expect(cached.body, label).toBe(fresh.body);
    }
  }

  const option = (i: number) => poll.metadata.poll.options[i]!.id;
  const votes = (i: number) => `/api/v1/posts/${poll.id}/polls/${poll.metadata.poll.id}/options/${option(i)}/votes`;

  /** Social writes; each may be refused in some states (a block, say), never answered wrongly. */
  const writes: [string, () => Promise<{ statusCode: number }>][] = [
    ["bob likes the post", () => c.call(bob, "POST", `/api/v1/posts/${post}/likes`)],
    ["bob unlikes the post", () => c.call(bob, "DELETE", `/api/v1/posts/${post}/likes`)],
    ["bob saves the post", () => c.call(bob, "POST", `/api/v1/posts/${post}/saves`)],
    ["bob unsaves the post", () => c.call(bob, "DELETE", `/api/v1/posts/${post}/saves`)],
    ["alice pins the post", () => c.call(alice, "POST", `/api/v1/posts/${post}/pins`)],
    ["alice unpins the post", () => c.call(alice, "DELETE", `/api/v1/posts/${post}/pins`)],
    ["carol follows the post", () => c.call(carol, "POST", `/api/v1/posts/${post}/follows`)],
    ["carol unfollows the post", () => c.call(carol, "DELETE", `/api/v1/posts/${post}/follows`)],
    ["carol comments", () => c.call(carol, "POST", `/api/v1/posts/${post}/comments`, { message: "Hmm" })],
    [
      "bob edits his comment",
      () => c.call(bob, "PUT", `/api/v1/posts/${post}/comments/${comment}`, { message: `Edited ${rid()}` }),
    ],
    ["alice likes the comment", () => c.call(alice, "POST", `/api/v1/posts/${post}/comments/${comment}/likes`)],
    ["alice unlikes the comment", () => c.call(alice, "DELETE", `/api/v1/posts/${post}/comments/${comment}/likes`)],
    [
      "bob likes the reply",
      () => c.call(bob, "POST", `/api/v1/posts/${post}/comments/${comment}/replies/${reply}/likes`),
    ],
    ["alice likes her own post", () => c.call(alice, "POST", `/api/v1/posts/${post}/likes`)],
    ["bob likes the share", () => c.call(bob, "POST", `/api/v1/posts/${share}/likes`)],
    [
      "bob unlikes the reply",
      () => c.call(bob, "DELETE", `/api/v1/posts/${post}/comments/${comment}/replies/${reply}/likes`),
    ],
    ["alice saves the poll", () => c.call(alice, "POST", `/api/v1/posts/${poll.id}/saves`)],
    [
      "carol comments on the poll",
      async () => {
        const res = await c.call(carol, "POST", `/api/v1/posts/${poll.id}/comments`, { message: "Up, surely" });
        if (res.statusCode === 201) pollComment = res.json().entity.id;
        return res;
      },
    ],
    [
      "bob likes carol's poll comment",
      () => c.call(bob, "POST", `/api/v1/posts/${poll.id}/comments/${pollComment}/likes`),
    ],
    [
      "bob shares the poll",
      async () => {
        const res = await c.call(bob, "POST", "/api/v1/posts/shares", { message: "", sharedOriginDiscussion: poll.id });
        if (res.statusCode === 201) pollShare = res.json().id;
        return res;
      },
    ],
    ["carol votes Flat", () => c.call(carol, "POST", votes(2))],
    ["bob votes Up", () => c.call(bob, "POST", votes(0))],
    ["bob changes to Down", () => c.call(bob, "POST", votes(1))],
    ["bob removes his vote", () => c.call(bob, "DELETE", votes(1))],
    [
      "carol deletes her poll comment",
      () => c.call(carol, "DELETE", `/api/v1/posts/${poll.id}/comments/${pollComment}`),
    ],
    ["alice edits the post", () => c.call(alice, "PUT", `/api/v1/posts/${post}`, { message: `AAPL ${rid()}` })],
    ["bob follows alice", () => c.call(bob, "POST", `/api/v1/users/${alice.user.gcid}/follows`)],
    ["bob unfollows alice", () => c.call(bob, "DELETE", `/api/v1/users/${alice.user.gcid}/follows`)],
    ["bob makes his profile private", () => c.call(bob, "PUT", "/api/v1/user-info/privacy", { isPrivate: true })],
    ["bob makes his profile public", () => c.call(bob, "PUT", "/api/v1/user-info/privacy", { isPrivate: false })],
    ["alice makes her profile private", () => c.call(alice, "PUT", "/api/v1/user-info/privacy", { isPrivate: true })],
    ["alice makes her profile public", () => c.call(alice, "PUT", "/api/v1/user-info/privacy", { isPrivate: false })],
    ["carol blocks alice", () => c.call(carol, "POST", `/api/v1/users/${alice.user.gcid}/blocks`)],
    ["carol unblocks alice", () => c.call(carol, "DELETE", `/api/v1/users/${alice.user.gcid}/blocks`)],
    ["alice blocks bob", () => c.call(alice, "POST", `/api/v1/users/${bob.user.gcid}/blocks`)],
    ["alice unblocks bob", () => c.call(alice, "DELETE", `/api/v1/users/${bob.user.gcid}/blocks`)],
    [
      "carol posts on AAPL",
      () => c.call(carol, "POST", "/api/v1/posts", { message: "Me too", tags: { tags: [{ id: String(AAPL) }] } }),
    ],
    [
      "alice posts a poll (her feed and the news list it; bob's feed stays as it was)",
      () =>
        c.call(alice, "POST", "/api/v1/posts/polls", {
          message: "Where next?",
          poll: {
            title: "Next",
            options: [
              { text: "Up", index: 1 },
              { text: "Down", index: 2 },
            ],
          },
        }),
    ],
    [
      "bob posts without a tag (his feed and the news; no instrument's feed)",
      () => c.call(bob, "POST", "/api/v1/posts", { message: "Quiet day" }),
    ],
    [
      "carol shares the share",
      () =>
        c.call(carol, "POST", "/api/v1/posts/shares", {
          message: "",
          sharedOriginDiscussion: post,
          sharedDiscussionId: share,
        }),
    ],
  ];

  it("answers every read as an uncached server does after each kind of social write", async () => {
    await expectCoherent("nothing");
    for (const [name, run] of writes) {
      const res = await run();
      expect(res.statusCode, name).toBeLessThan(300);
      await expectCoherent(name);
    }
    // Deletes last: they end what the writes above act on.
    const { id: extra } = await c.post(carol, { message: "Gone soon", tags: { tags: [{ id: String(AAPL) }] } });
    await expectCoherent("carol posts once more");
    await c.ok(carol, "DELETE", `/api/v1/posts/${extra}`, undefined, 204);
    await expectCoherent("carol deletes her post");
    await c.ok(bob, "DELETE", `/api/v1/posts/${share}`, undefined, 204);
    await expectCoherent("bob deletes his share (the post's sharedCount drops)");
    await c.ok(carol, "DELETE", `/api/v1/posts/${post}/comments/${comment}/replies/${reply}`, undefined, 204);
    await expectCoherent("carol deletes her reply");
    await c.ok(alice, "DELETE", `/api/v1/posts/${post}/comments/${comment}`, undefined, 204);
    await expectCoherent("alice deletes a comment under her post");
    await c.ok(alice, "DELETE", `/api/v1/posts/${post}`, undefined, 204);
    await expectCoherent("alice deletes the post (the shares now embed a tombstone)");
  }, 300_000);

  it("stays coherent through any sequence of writes", async () => {
    // The post was deleted above: this sequence acts on a new one and its own poll.
    post = (await c.post(alice, { message: "Round two", tags: { tags: [{ id: String(AAPL) }] } })).id;
    poll = await c.poll(alice, ["Up", "Down", "Flat"]);
    comment = (await c.ok(bob, "POST", `/api/v1/posts/${post}/comments`, { message: "Again" }, 201)).entity.id;
    reply = (await c.ok(carol, "POST", `/api/v1/posts/${post}/comments/${comment}/replies`, { message: "Re" }, 201))
      .entity.id;
    share = (await c.ok(bob, "POST", "/api/v1/posts/shares", { message: "", sharedOriginDiscussion: post }, 201)).id;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: writes.length - 1 }), { minLength: 1, maxLength: 6 }),
        async (picks) => {
          for (const i of picks) {
            const [name, run] = writes[i]!;
            const res = await run();
            expect(res.statusCode, name).toBeLessThan(500);
            await expectCoherent(name);
          }
        },
      ),
      { numRuns: 8 },
    );
  }, 300_000);
});
