import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DomainEvent } from "../../src/core/events.js";
import { newId } from "../../src/core/ids.js";
import { subscribeInTransaction, transact, withActor } from "../../src/modules/context.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";

/*
 * Write handlers (decision 0204): run inside the transaction that recorded their event, so what
 * they write commits with it or not at all. The social notifications are written this way.
 */
describe.each(engines())("write handlers run inside the recording transaction (%s)", (engine) => {
  let h: Harness;
  let owner: TestUser;
  let actor: TestUser;
  const published: DomainEvent[][] = [];

  beforeAll(async () => {
    h = await startHarness(engine);
    owner = await h.user(["feed:write"]);
    actor = await h.user(["feed:write"]);
    const publish = h.deps.bus.publish.bind(h.deps.bus);
    h.deps.bus.publish = async (events) => {
      published.push([...events]);
      return publish(events);
    };
  });
  afterAll(async () => h?.close());

  const liked = (postId: string): DomainEvent => ({
    type: "PostLiked",
    postOwnerId: owner.user.id,
    actorId: actor.user.id,
    actorUsername: actor.user.username,
    postId,
    occurredAt: new Date().toISOString(),
  });

  const notificationsFor = (postId: string) =>
    h.deps.db.kysely
      .selectFrom("notifications")
      .select(["userId", "notificationType"])
      .where("actionLink", "=", `/api/v1/posts/${postId}`)
      .execute();

  it("writes what the event causes before the commit, and publishes its events after the cause's", async () => {
    published.length = 0;
    const postId = newId();
    const seenInside = await transact(withActor(h.deps, actor.actor), async (trx, record) => {
      record(liked(postId));
      // The handlers run after the work returns: nothing of theirs is written yet.
      return trx.selectFrom("notifications").select("id").where("actionLink", "=", `/api/v1/posts/${postId}`).execute();
    });
    expect(seenInside).toEqual([]);
    expect(await notificationsFor(postId)).toEqual([{ userId: owner.user.id, notificationType: "PostLike" }]);
    expect(published).toHaveLength(1);
    expect(published[0]!.map((e) => e.type)).toEqual(["PostLiked", "NotificationCreated"]);
    expect(published[0]![1]).toMatchObject({ userId: owner.user.id, item: { actionLink: `/api/v1/posts/${postId}` } });
  });

  it("rolls the cause back with a handler that throws, and publishes nothing", async () => {
    published.length = 0;
    const postId = newId();
    const boom = new Error("the handler failed");
    let calls = 0;
    subscribeInTransaction(h.deps, "PostLiked", async (_trx, event) => {
      calls += 1;
      if (event.postId === postId) throw boom;
    });
    const setting = `write-handler-test-${postId}`;
    await expect(
      transact(h.deps, async (trx, record) => {
        await trx
          .insertInto("oauthSettings")
          .values({ name: setting, value: "x", updatedAt: new Date().toISOString() })
          .execute();
        record(liked(postId));
      }),
    ).rejects.toBe(boom);
    expect(calls).toBe(1);
    const kept = await h.deps.db.kysely
      .selectFrom("oauthSettings")
      .select("name")
      .where("name", "=", setting)
      .execute();
    expect(kept).toEqual([]);
    // The notification the first handler wrote went with it.
    expect(await notificationsFor(postId)).toEqual([]);
    expect(published).toEqual([]);
  });
});
