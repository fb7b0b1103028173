import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withActor } from "../../src/modules/context.js";
import { listComments } from "../../src/modules/social/comments/list-comments.js";
import { REPLIES_PREVIEW } from "../../src/modules/social/shared/assemble.js";
import { CommentItem, CommentsResponse, Discussion } from "../../src/modules/social/shared/social.schemas.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";
import { client, countingQueries, RW } from "./helpers.js";

interface Item {
  entity: { id: string; message: { text: string }; parent: { id: string; type: string }; owner: { id: string } };
  repliesCount: number;
  replies: Item[];
  emotionsData: { like: { paging: { totalCount: number } } };
  requesterContext: { isOwner: boolean; isLiking: boolean };
}

const texts = (items: Item[]) => items.map((i) => i.entity.message.text);

describe.each(engines())("reply previews on %s", (engine) => {
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

  const reply = (u: TestUser, postId: string, commentId: string, message: string) =>
    c.ok(u, "POST", `/api/v1/posts/${postId}/comments/${commentId}/replies`, { message }, 201);

  it("top-level comments carry their first replies, oldest first, at most 3; repliesCount stays the total", async () => {
    expect(REPLIES_PREVIEW).toBe(3);
    const post = await c.post(alice, { message: "preview" });
    const withReplies = await c.ok(bob, "POST", `/api/v1/posts/${post.id}/comments`, { message: "c0" }, 201);
    const lonely = await c.ok(bob, "POST", `/api/v1/posts/${post.id}/comments`, { message: "c1" }, 201);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await reply(i % 2 ? bob : alice, post.id, withReplies.entity.id, `r${i}`));
    // The oldest reply is deleted: it is neither shown nor counted.
    await c.ok(
      alice,
      "DELETE",
      `/api/v1/posts/${post.id}/comments/${withReplies.entity.id}/replies/${made[0].entity.id}`,
      undefined,
      204,
    );
    await c.ok(
      alice,
      "POST",
      `/api/v1/posts/${post.id}/comments/${withReplies.entity.id}/replies/${made[1].entity.id}/likes`,
      undefined,
      204,
    );

    const d = await c.ok(alice, "GET", `/api/v1/posts/${post.id}?take=10`);
    expectSchema(Discussion, d);
    const fromPost = d.commentsData.comments as Item[];
    expect(texts(fromPost)).toEqual(["c1", "c0"]);
    const [c1, c0] = fromPost as [Item, Item];
    expect(c1.entity.id).toBe(lonely.entity.id);
    expect(c1.replies).toEqual([]);
    expect(c1.repliesCount).toBe(0);
    expect(c0.repliesCount).toBe(4);
    expect(texts(c0.replies)).toEqual(["r1", "r2", "r3"]);
    for (const r of c0.replies) {
      expectSchema(CommentItem, r);
      expect(r.replies).toEqual([]);
      expect(r.repliesCount).toBe(0);
      expect(r.entity.parent).toEqual({
        id: withReplies.entity.id,
        obsoleteId: withReplies.entity.obsoleteId,
        type: "Comment",
      });
    }
    const [r1, r2] = c0.replies as [Item, Item];
    // Each reply is a full comment item: its owner, reactions and the requester's context.
    expect(r1.entity.owner.id).toBe(String(bob.user.gcid));
    expect(r1.requesterContext).toEqual({ isOwner: false, isLiking: true, isFlaggingAsSpam: false });
    expect(r1.emotionsData.like.paging.totalCount).toBe(1);
    expect(r2.entity.owner.id).toBe(String(alice.user.gcid));
    expect(r2.requesterContext.isOwner).toBe(true);
    expect(r2.requesterContext.isLiking).toBe(false);
    // The reply preview equals the item the replies list returns.
    const listed = await c.ok(
      alice,
      "GET",
      `/api/v1/posts/${post.id}/comments/${withReplies.entity.id}/replies?order=asc`,
    );
    expect(listed.comments.slice(0, 3)).toEqual(c0.replies);
    expect(texts(listed.comments)).toEqual(["r1", "r2", "r3", "r4"]);

    // The comments list carries the same previews.
    const page = await c.ok(alice, "GET", `/api/v1/posts/${post.id}/comments?order=asc`);
    expectSchema(CommentsResponse, page);
    const [l0, l1] = page.comments as [Item, Item];
    expect(texts(l0.replies)).toEqual(["r1", "r2", "r3"]);
    expect(l0.repliesCount).toBe(4);
    expect(l0.replies).toEqual(c0.replies);
    expect(l1.replies).toEqual([]);
  });

  it("a blocked user's reply is not shown to the blocker, and still is to others", async () => {
    const carol = await h.user(RW);
    const dave = await h.user(RW);
    const post = await c.post(alice, { message: "blocks" });
    const comment = await c.ok(bob, "POST", `/api/v1/posts/${post.id}/comments`, { message: "c" }, 201);
    await reply(carol, post.id, comment.entity.id, "from carol");
    await reply(bob, post.id, comment.entity.id, "from bob");
    await c.ok(alice, "POST", `/api/v1/users/${carol.user.gcid}/blocks`, undefined, 204);

    const seenBy = async (u: TestUser) => {
      const d = await c.ok(u, "GET", `/api/v1/posts/${post.id}`);
      const list = await c.ok(u, "GET", `/api/v1/posts/${post.id}/comments`);
      const fromPost = texts((d.commentsData.comments as Item[])[0]!.replies);
      expect(texts((list.comments as Item[])[0]!.replies)).toEqual(fromPost);
      return fromPost;
    };
    expect(await seenBy(alice)).toEqual(["from bob"]);
    expect(await seenBy(dave)).toEqual(["from carol", "from bob"]);
    // The commenter, who blocks nobody, sees both too.
    expect(await seenBy(bob)).toEqual(["from carol", "from bob"]);
  });

  it("replies load in one batched query, whatever the number of comments", async () => {
    const post = await c.post(alice, { message: "batched" });
    for (let i = 0; i < 6; i++) {
      const comment = await c.ok(bob, "POST", `/api/v1/posts/${post.id}/comments`, { message: `c${i}` }, 201);
      for (let j = 0; j < 2; j++) await reply(j ? alice : bob, post.id, comment.entity.id, `r${i}.${j}`);
    }
    const counted = countingQueries(h.deps);
    const read = async (take: number) => {
      counted.take();
      const page = await listComments(
        withActor(counted.deps, alice.actor),
        { postId: post.id },
        { take, order: "desc" },
      );
      expect(page.comments).toHaveLength(take);
      for (const item of page.comments) expect(item.replies).toHaveLength(2);
      return counted.take();
    };
    await read(6);
    const two = await read(2);
    const six = await read(6);
    expect(six).toBe(two);
  });
});
