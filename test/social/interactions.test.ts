import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WINDOWED_LIKES_MAX } from "../../src/modules/social/reactions/reactions.repository.js";
import { CommentItem, CommentsResponse, Post, SharesResponse } from "../../src/modules/social/shared/social.schemas.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";
import { client, RW } from "./helpers.js";

describe.each(engines())("social interactions on %s", (engine) => {
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

  it("edit and soft delete of a post: owner only (403), then 404 once deleted", async () => {
    const post = await c.post(alice, { message: "original", attachments: [{ url: "https://e.com/a" }] });
    expect((await c.call(bob, "PUT", `/api/v1/posts/${post.id}`, { message: "hijack" })).statusCode).toBe(403);
    expect((await c.call(bob, "DELETE", `/api/v1/posts/${post.id}`)).statusCode).toBe(403);
    const edited = await c.ok(alice, "PUT", `/api/v1/posts/${post.id}`, { message: "edited" });
    expectSchema(Post, edited);
    expect(edited.editStatus).toBe("Edited");
    expect(edited.message.text).toBe("edited");
    expect(edited.attachments).toHaveLength(1);
    expect(edited.created).toBe(post.created);
    expect((await c.call(alice, "PUT", `/api/v1/posts/${post.id}`, { message: "" })).statusCode).toBe(422);

    await c.ok(alice, "DELETE", `/api/v1/posts/${post.id}`, undefined, 204);
    for (const [method, url, payload] of [
      ["DELETE", `/api/v1/posts/${post.id}`, undefined],
      ["PUT", `/api/v1/posts/${post.id}`, { message: "again" }],
      ["POST", `/api/v1/posts/${post.id}/likes`, undefined],
      ["POST", `/api/v1/posts/${post.id}/saves`, undefined],
      ["POST", `/api/v1/posts/${post.id}/comments`, { message: "late" }],
      ["POST", "/api/v1/posts/shares", { message: "", sharedOriginDiscussion: post.id }],
    ] as const) {
      const res = await c.call(bob, method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await c.call(alice, "PUT", `/api/v1/posts/${randomUUID()}`, { message: "x" })).statusCode).toBe(404);
  });

  it("a poll stays immutable: editing the post changes its text only", async () => {
    const poll = await c.poll(alice, ["A", "B", "C"]);
    const edited = await c.ok(alice, "PUT", `/api/v1/posts/${poll.id}`, {
      message: "new text",
      poll: { title: "changed" },
    });
    expect(edited.metadata.poll.title).toBe("Direction");
    expect(edited.metadata.poll.options.map((o: { text: string }) => o.text)).toEqual(["A", "B", "C"]);
  });

  it("comments and replies: create, list with paging, edit, like, delete; counts follow", async () => {
    const post = await c.post(alice, { message: "discuss" });
    const made = [];
    for (let i = 0; i < 5; i++)
      made.push(await c.ok(bob, "POST", `/api/v1/posts/${post.id}/comments`, { message: `c${i}` }, 201));
    expectSchema(CommentItem, made[0]);
    expect(made[0].entity.parent).toEqual({ id: post.id, obsoleteId: post.obsoleteId, type: "Post" });
    const first = made[0].entity.id;
    const reply = await c.ok(
      alice,
      "POST",
      `/api/v1/posts/${post.id}/comments/${first}/replies`,
      { message: "r1" },
      201,
    );
    expect(reply.entity.parent).toEqual({ id: first, obsoleteId: made[0].entity.obsoleteId, type: "Comment" });

    const texts: string[] = [];
    let url = `/api/v1/posts/${post.id}/comments?take=2`;
    while (url) {
      const page = await c.ok(alice, "GET", url);
      expectSchema(CommentsResponse, page);
      expect(page.reactionPaging.totalCount).toBe(5);
      texts.push(...page.comments.map((x: { entity: { message: { text: string } } }) => x.entity.message.text));
      url = page.reactionPaging.next;
    }
    expect(texts).toEqual(["c4", "c3", "c2", "c1", "c0"]);
    const asc = await c.ok(alice, "GET", `/api/v1/posts/${post.id}/comments?order=asc&take=100`);
    expect(asc.comments[0].repliesCount).toBe(1);
    const replies = await c.ok(alice, "GET", `/api/v1/posts/${post.id}/comments/${first}/replies`);
    expect(replies.comments.map((x: { entity: { id: string } }) => x.entity.id)).toEqual([reply.entity.id]);

    expect(
      (await c.call(alice, "PUT", `/api/v1/posts/${post.id}/comments/${first}`, { message: "nope" })).statusCode,
    ).toBe(403);
    const edited = await c.ok(bob, "PUT", `/api/v1/posts/${post.id}/comments/${first}`, { message: "c0 edited" });
    expect(edited.entity.editStatus).toBe("Edited");
    const editedReply = await c.ok(
      alice,
      "PUT",
      `/api/v1/posts/${post.id}/comments/${first}/replies/${reply.entity.id}`,
      { message: "r1!" },
    );
    expect(editedReply.entity.message.text).toBe("r1!");
    expect(
      (
        await c.call(bob, "PUT", `/api/v1/posts/${post.id}/comments/${first}/replies/${reply.entity.id}`, {
          message: "x",
        })
      ).statusCode,
    ).toBe(403);

    await c.ok(alice, "POST", `/api/v1/posts/${post.id}/comments/${first}/likes`, undefined, 204);
    await c.ok(
      bob,
      "POST",
      `/api/v1/posts/${post.id}/comments/${first}/replies/${reply.entity.id}/likes`,
      undefined,
      204,
    );
    const liked = await c.ok(alice, "GET", `/api/v1/posts/${post.id}/comments?order=asc`);
    expect(liked.comments[0].emotionsData.like.paging.totalCount).toBe(1);
    expect(liked.comments[0].requesterContext.isLiking).toBe(true);
    await c.ok(alice, "DELETE", `/api/v1/posts/${post.id}/comments/${first}/likes`, undefined, 204);

    let d = await c.ok(alice, "GET", `/api/v1/posts/${post.id}`);
    expect(d.summary.totalCommentsAndReplies).toBe(6);
    expect((await c.call(alice, "DELETE", `/api/v1/posts/${post.id}/comments/${made[1].entity.id}`)).statusCode).toBe(
      204,
    );
    const stranger = await h.user(RW);
    expect(
      (await c.call(stranger, "DELETE", `/api/v1/posts/${post.id}/comments/${made[2].entity.id}`)).statusCode,
    ).toBe(403);
    await c.ok(
      alice,
      "DELETE",
      `/api/v1/posts/${post.id}/comments/${first}/replies/${reply.entity.id}`,
      undefined,
      204,
    );
    d = await c.ok(alice, "GET", `/api/v1/posts/${post.id}`);
    expect(d.summary.totalCommentsAndReplies).toBe(4);
    expect(d.commentsData.reactionPaging.totalCount).toBe(4);
    expect(
      (await c.call(bob, "PUT", `/api/v1/posts/${post.id}/comments/${made[1].entity.id}`, { message: "x" })).statusCode,
    ).toBe(404);
    expect(
      (await c.call(bob, "POST", `/api/v1/posts/${post.id}/comments`, { message: "x".repeat(501) })).statusCode,
    ).toBe(422);
  });

  it("likes, saves, pins and follows are idempotent and show in requesterContext", async () => {
    const post = await c.post(alice, { message: "marks" });
    for (let i = 0; i < 2; i++) {
      for (const m of ["likes", "saves", "follows"])
        await c.ok(bob, "POST", `/api/v1/posts/${post.id}/${m}`, undefined, 204);
      await c.ok(alice, "POST", `/api/v1/posts/${post.id}/pins`, undefined, 204);
    }
    const d = await c.ok(bob, "GET", `/api/v1/posts/${post.id}`);
    expect(d.emotionsData.like.paging.totalCount).toBe(1);
    expect(d.requesterContext).toMatchObject({
      isLiking: true,
      isSaved: true,
      isFollowing: true,
      isSubscribed: true,
      isPinned: false,
    });
    expect((await c.ok(alice, "GET", `/api/v1/posts/${post.id}`)).requesterContext.isPinned).toBe(true);
    for (const m of ["likes", "saves", "follows"])
      await c.ok(bob, "DELETE", `/api/v1/posts/${post.id}/${m}`, undefined, 204);
    const after = await c.ok(bob, "GET", `/api/v1/posts/${post.id}`);
    expect(after.emotionsData.like.paging.totalCount).toBe(0);
    expect(after.requesterContext).toMatchObject({ isLiking: false, isSaved: false, isFollowing: false });
    expect((await c.call(bob, "POST", `/api/v1/posts/${randomUUID()}/likes`)).statusCode).toBe(404);
  });

  it("likes previews: the newest likers first and the exact count, for a popular post and a quiet one on one page", async () => {
    // More likes than one window preview reads (WINDOWED_LIKES_MAX): previewed by its own query.
    const author = await h.user(RW);
    const popular = await c.post(author, { message: "popular" });
    const quiet = await c.post(author, { message: "quiet" });
    const likers: TestUser[] = [];
    for (let i = 0; i < WINDOWED_LIKES_MAX + 8; i++) likers.push(await h.user(RW));
    // Its comment is popular too: two entities previewed by their own arms in one statement.
    const comment = (await c.ok(author, "POST", `/api/v1/posts/${popular.id}/comments`, { message: "me too" }, 201))
      .entity.id;
    for (const u of likers) {
      await c.ok(u, "POST", `/api/v1/posts/${popular.id}/likes`, undefined, 204);
      await c.ok(u, "POST", `/api/v1/posts/${popular.id}/comments/${comment}/likes`, undefined, 204);
    }
    for (const u of likers.slice(0, 3)) await c.ok(u, "POST", `/api/v1/posts/${quiet.id}/likes`, undefined, 204);
    const newest = (users: TestUser[], n: number) =>
      users
        .slice(-n)
        .reverse()
        .map((u) => u.user.username);
    const likersOf = (d: { emotionsData: { like: { emotions: { owner: { username: string } }[] } } }) =>
      d.emotionsData.like.emotions.map((e) => e.owner.username);

    const single = await c.ok(bob, "GET", `/api/v1/posts/${popular.id}`);
    expect(single.emotionsData.like.paging.totalCount).toBe(likers.length);
    expect(likersOf(single)).toEqual(newest(likers, 10));
    const [commented] = single.commentsData.comments;
    expect(commented.entity.id).toBe(comment);
    expect(commented.emotionsData.like.paging.totalCount).toBe(likers.length);
    expect(likersOf(commented)).toEqual(newest(likers, 10));
    const page = await c.ok(bob, "GET", `/api/v1/feeds/users/${author.user.id}?take=5&reactionsPageSize=7`);
    const [q, p] = page.discussions;
    expect([q.id, p.id]).toEqual([quiet.id, popular.id]);
    expect(p.emotionsData.like.paging.totalCount).toBe(likers.length);
    expect(likersOf(p)).toEqual(newest(likers, 7));
    expect(q.emotionsData.like.paging.totalCount).toBe(3);
    expect(likersOf(q)).toEqual(newest(likers.slice(0, 3), 3));
  });

  it("shares: flat two-level metadata, counts and the shares list", async () => {
    const origin = await c.post(alice, { message: "share me" });
    const s1 = await c.ok(bob, "POST", "/api/v1/posts/shares", { message: "", sharedOriginDiscussion: origin.id }, 201);
    expectSchema(Post, s1);
    expect(s1.type).toBe("Share");
    expect(s1.metadata.share.sharedPost.id).toBe(origin.id);
    expect(s1.metadata.share.sharedOriginPost.id).toBe(origin.id);
    const carol = await h.user(RW);
    const s2 = await c.ok(
      carol,
      "POST",
      "/api/v1/posts/shares",
      { message: "quote", sharedOriginDiscussion: s1.id },
      201,
    );
    expect(s2.metadata.share.sharedPost.id).toBe(s1.id);
    expect(s2.metadata.share.sharedOriginPost.id).toBe(origin.id);
    const d = await c.ok(alice, "GET", `/api/v1/posts/${origin.id}`);
    expect(d.summary.sharedCount).toBe(2);
    const list = await c.ok(alice, "GET", `/api/v1/posts/${origin.id}/shares?take=1`);
    expectSchema(SharesResponse, list);
    expect(list.paging.totalCount).toBe(2);
    expect(list.postShares[0].owner.id).toBe(String(carol.user.gcid));
    const next = await c.ok(alice, "GET", list.paging.next);
    expect(next.postShares.map((s: { shareReactionId: string }) => s.shareReactionId)).toEqual([s1.id]);
    expect(
      (await c.call(bob, "POST", "/api/v1/posts/shares", { message: "", sharedOriginDiscussion: randomUUID() }))
        .statusCode,
    ).toBe(404);
  });

  it("poll votes: one per user, change allowed, removal, isUserVoted per caller", async () => {
    const poll = await c.poll(alice, ["Up", "Down", "Flat"]);
    const { id: pollId, options } = poll.metadata.poll;
    const [up, down] = options;
    const voteUrl = (o: number) => `/api/v1/posts/${poll.id}/polls/${pollId}/options/${o}/votes`;
    await c.ok(bob, "POST", voteUrl(up!.id), undefined, 202);
    await c.ok(bob, "POST", voteUrl(up!.id), undefined, 202);
    let d = await c.ok(bob, "GET", `/api/v1/posts/${poll.id}`);
    expect(d.post.metadata.poll.options.map((o: { votesCount: number }) => o.votesCount)).toEqual([1, 0, 0]);
    expect(d.post.metadata.poll.options.map((o: { isUserVoted: boolean }) => o.isUserVoted)).toEqual([
      true,
      false,
      false,
    ]);
    await c.ok(bob, "POST", voteUrl(down!.id), undefined, 202);
    d = await c.ok(alice, "GET", `/api/v1/posts/${poll.id}`);
    expect(d.post.metadata.poll.options.map((o: { votesCount: number }) => o.votesCount)).toEqual([0, 1, 0]);
    expect(d.post.metadata.poll.options.every((o: { isUserVoted: boolean }) => !o.isUserVoted)).toBe(true);
    await c.ok(bob, "DELETE", voteUrl(down!.id), undefined, 202);
    d = await c.ok(bob, "GET", `/api/v1/posts/${poll.id}`);
    expect(d.post.metadata.poll.options.map((o: { votesCount: number }) => o.votesCount)).toEqual([0, 0, 0]);

    const other = await c.poll(alice);
    const foreign = await c.call(
      bob,
      "POST",
      `/api/v1/posts/${poll.id}/polls/${other.metadata.poll.id}/options/${other.metadata.poll.options[0]!.id}/votes`,
    );
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().details).toEqual([
      { field: "params/pollId", message: "Path parameter pollId must be the id of this post's poll." },
    ]);
    expect(
      (await c.call(bob, "POST", `/api/v1/posts/${poll.id}/polls/${pollId}/options/999999/votes`)).statusCode,
    ).toBe(404);
    expect((await c.call(bob, "POST", `/api/v1/posts/${poll.id}/polls/999999/options/1/votes`)).statusCode).toBe(404);
    expect(
      (await c.call(bob, "POST", `/api/v1/posts/${randomUUID()}/polls/${pollId}/options/${up!.id}/votes`)).statusCode,
    ).toBe(404);
  });

  it("poll votes stay exact under concurrent voting and vote changes", async () => {
    const poll = await c.poll(alice, ["A", "B", "C", "D"]);
    const { id: pollId, options } = poll.metadata.poll;
    const voters = await Promise.all(Array.from({ length: 12 }, () => h.user(RW)));
    const url = (o: number) => `/api/v1/posts/${poll.id}/polls/${pollId}/options/${o}/votes`;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: voters.length - 1 }), fc.integer({ min: 0, max: 3 })), {
          minLength: 1,
          maxLength: 30,
        }),
        async (votes) => {
          await h.deps.db.kysely.deleteFrom("pollVotes").where("pollId", "=", pollId).execute();
          // Every voter's requests are sent at once, so a voter's own votes race each other too.
          const results = await Promise.all(votes.map(([v, o]) => c.call(voters[v]!, "POST", url(options[o]!.id))));
          expect(results.every((r) => r.statusCode === 202)).toBe(true);
          const rows = await h.deps.db.kysely
            .selectFrom("pollVotes")
            .selectAll()
            .where("pollId", "=", pollId)
            .execute();
          const distinctVoters = new Set(votes.map(([v]) => v)).size;
          expect(rows).toHaveLength(distinctVoters);
          const d = await c.ok(alice, "GET", `/api/v1/posts/${poll.id}`);
          const counts = d.post.metadata.poll.options.map((o: { votesCount: number }) => o.votesCount);
          expect(counts.reduce((a: number, b: number) => a + b, 0)).toBe(distinctVoters);
          for (const [i, o] of options.entries()) {
            expect(counts[i]).toBe(rows.filter((r) => r.optionId === o.id).length);
          }
          // each voter's single vote is one of the options they asked for
          for (const r of rows) {
            const v = voters.findIndex((u) => u.user.id === r.userId);
            const asked = votes.filter(([x]) => x === v).map(([, o]) => options[o]!.id);
            expect(asked).toContain(r.optionId);
          }
        },
      ),
      { numRuns: 8 },
    );
  });

  it("user follow: idempotent, not yourself, 404 for unknown users", async () => {
    const fan = await h.user(RW);
    const idol = await h.user(RW);
    await c.ok(fan, "POST", `/api/v1/users/${idol.user.username}/follows`, undefined, 204);
    await c.ok(fan, "POST", `/api/v1/users/${idol.user.gcid}/follows`, undefined, 204);
    const rows = await h.deps.db.kysely
      .selectFrom("userFollows")
      .selectAll()
      .where("followerId", "=", fan.user.id)
      .execute();
    expect(rows).toHaveLength(1);
    const self = await c.call(fan, "POST", `/api/v1/users/${fan.user.gcid}/follows`);
    expect(self.statusCode).toBe(422);
    expect(self.json().errorMessage).toBe("Path parameter userId must name another user: you cannot follow yourself.");
    expect((await c.call(fan, "POST", "/api/v1/users/nobody_at_all/follows")).statusCode).toBe(404);
    await c.ok(fan, "DELETE", `/api/v1/users/${idol.user.gcid}/follows`, undefined, 204);
    expect(
      await h.deps.db.kysely.selectFrom("userFollows").selectAll().where("followerId", "=", fan.user.id).execute(),
    ).toHaveLength(0);
  });
});
