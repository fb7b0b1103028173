import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotificationResult } from "../../src/modules/notifications/notifications.schemas.js";
import { CommentItem } from "../../src/modules/social/shared/social.schemas.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";
import { client, RW } from "./helpers.js";

interface Message {
  notificationType: string;
  category: string;
  subCategory: string;
  section: string;
  actionLink: string;
  message: string;
  aggregationId: string;
  correlationId: string;
}

describe.each(engines())("notifications from social events on %s", (engine) => {
  let h: Harness;
  let owner: TestUser;
  let actor: TestUser;
  const c = client(() => h);
  beforeAll(async () => {
    h = await startHarness(engine);
    owner = await h.user([...RW, "notifications:read"]);
    actor = await h.user([...RW, "notifications:read"]);
  });
  afterAll(async () => h.close());

  const inbox = async (u: TestUser): Promise<Message[]> => {
    const body = await c.ok(u, "GET", "/api/v1/notifications/messages");
    expectSchema(NotificationResult, body);
    return body.messages.filter((m: Message) => m.category === "Social");
  };

  it("mention, comment, reply, like, new follower and share each notify the right user once", async () => {
    const post = await c.post(owner, { message: "hello world" });
    const mentioning = await c.post(actor, {
      message: "cc",
      mentions: { mentions: [{ id: String(owner.user.gcid) }] },
    });
    const comment = await c.ok(
      actor,
      "POST",
      `/api/v1/posts/${post.id}/comments`,
      { message: `agree @${owner.user.username}` },
      201,
    );
    await c.ok(
      actor,
      "POST",
      `/api/v1/posts/${post.id}/comments/${comment.entity.id}/replies`,
      { message: "and more" },
      201,
    );
    await c.ok(actor, "POST", `/api/v1/posts/${post.id}/likes`, undefined, 204);
    await c.ok(actor, "POST", `/api/v1/posts/${post.id}/likes`, undefined, 204);
    await c.ok(actor, "POST", `/api/v1/users/${owner.user.gcid}/follows`, undefined, 204);
    const share = await c.ok(
      actor,
      "POST",
      "/api/v1/posts/shares",
      { message: "", sharedOriginDiscussion: post.id },
      201,
    );

    const got = await inbox(owner);
    const byType = (t: string) => got.filter((m) => m.notificationType === t);
    expect(byType("Mention")).toHaveLength(2);
    expect(
      byType("Mention")
        .map((m) => m.actionLink)
        .sort(),
    ).toEqual([`/api/v1/posts/${mentioning.id}`, `/api/v1/posts/${post.id}`].sort());
    expect(
      byType("Mention")
        .map((m) => m.message)
        .sort(),
    ).toEqual([
      `@${actor.user.username} mentioned you in a comment`,
      `@${actor.user.username} mentioned you in a post`,
    ]);
    expect(byType("PostComment")).toEqual([
      expect.objectContaining({
        subCategory: "Comment",
        section: "Feed",
        actionLink: `/api/v1/posts/${post.id}`,
        message: `@${actor.user.username} commented on your post`,
        aggregationId: `comments:${post.id}`,
        correlationId: comment.entity.id,
      }),
    ]);
    expect(byType("PostReply")).toHaveLength(1);
    expect(byType("PostLike")).toEqual([
      expect.objectContaining({
        message: `@${actor.user.username} liked your post`,
        aggregationId: `likes:${post.id}`,
      }),
    ]);
    expect(byType("NewFollower")).toEqual([
      expect.objectContaining({ actionLink: `/api/v1/feeds/users/${actor.user.gcid}`, section: "Profile" }),
    ]);
    expect(byType("PostShare")).toEqual([expect.objectContaining({ actionLink: `/api/v1/posts/${share.id}` })]);
    expect(got).toHaveLength(7);
  });

  it("a comment through upstream's reactions path is the same comment: listed, counted and notified", async () => {
    const post = await c.post(owner, { message: "second path" });
    const made = await c.ok(actor, "POST", `/api/v1/reactions/${post.id}/comment`, { message: "via reactions" }, 201);
    expectSchema(CommentItem, made);
    expect(made.entity).toMatchObject({ message: { text: "via reactions" }, parent: { id: post.id, type: "Post" } });
    const listed = await c.ok(owner, "GET", `/api/v1/posts/${post.id}/comments`);
    expect(listed.comments.map((x: { entity: { id: string } }) => x.entity.id)).toEqual([made.entity.id]);
    const read = await c.ok(owner, "GET", `/api/v1/posts/${post.id}`);
    expect(read.commentsData.reactionPaging.totalCount).toBe(1);
    const told = (await inbox(owner)).filter((m) => m.correlationId === made.entity.id);
    expect(told).toEqual([expect.objectContaining({ notificationType: "PostComment" })]);
    // the same rules: an empty message is 422 on the body field, an unknown post 404
    const empty = await c.call(actor, "POST", `/api/v1/reactions/${post.id}/comment`, { message: "" });
    expect(empty.statusCode).toBe(422);
    expect(empty.json().details[0].field).toBe("body/message");
    const unknown = await c.call(actor, "POST", "/api/v1/reactions/00000000-0000-4000-8000-000000000000/comment", {
      message: "x",
    });
    expect(unknown.statusCode).toBe(404);
  });

  it("acting on your own content notifies nobody", async () => {
    const loner = await h.user([...RW, "notifications:read"]);
    const post = await c.post(loner, {
      message: `me @${loner.user.username}`,
      mentions: { mentions: [{ id: String(loner.user.gcid) }] },
    });
    await c.ok(loner, "POST", `/api/v1/posts/${post.id}/likes`, undefined, 204);
    await c.ok(loner, "POST", `/api/v1/posts/${post.id}/comments`, { message: "self" }, 201);
    await c.ok(loner, "POST", "/api/v1/posts/shares", { message: "", sharedOriginDiscussion: post.id }, 201);
    expect(await inbox(loner)).toEqual([]);
  });
});
