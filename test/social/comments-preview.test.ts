import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentsRepository } from "../../src/modules/social/comments/comments.repository.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";
import { client, RW } from "./helpers.js";

const spec = fc.record({
  owner: fc.nat({ max: 3 }),
  /** Index of an earlier comment this one replies to, if any (taken modulo their number). */
  replyTo: fc.option(fc.nat(), { nil: null, freq: 2 }),
  onOther: fc.boolean(),
  // Mostly visible, so that previews have more comments than they show.
  isDeleted: fc.constantFrom(false, false, false, true),
  isSpam: fc.constantFrom(false, false, false, true),
});

// A comment preview of one post (or one comment's replies) walks its index to the first rows
// (decision 0197); several parents share one window. Both must pick the same comments, in the same
// order: the one-parent answer is the several-parent answer restricted to that parent.
describe.each(engines())("comment previews on %s", (engine) => {
  let h: Harness;
  let users: TestUser[];
  const c = client(() => h);
  beforeAll(async () => {
    h = await startHarness(engine);
    users = [];
    for (let i = 0; i < 4; i++) users.push(await h.user(RW));
    // users[2] blocks users[3]: each is hidden from the other's previews.
    await c.ok(users[2]!, "POST", `/api/v1/users/${users[3]!.user.gcid}/blocks`, undefined, 204);
  });
  afterAll(async () => h.close());

  it("one parent's preview is the several parents' preview restricted to it", async () => {
    const repo = commentsRepository(h.deps.db.kysely);
    await fc.assert(
      fc.asyncProperty(
        fc.array(spec, { minLength: 0, maxLength: 30 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom<"asc" | "desc">("asc", "desc"),
        fc.constantFrom(null, 0, 2, 3),
        async (specs, take, order, requester) => {
          const post = await c.post(users[0]!, { message: "Previewed" });
          const other = await c.post(users[1]!, { message: "Beside it" });
          const made: { id: string; postId: string }[] = [];
          for (const s of specs) {
            const postId = s.onOther ? other.id : post.id;
            const siblings = made.filter((m) => m.postId === postId);
            const parent = s.replyTo === null || siblings.length === 0 ? null : siblings[s.replyTo % siblings.length]!;
            const at = new Date().toISOString();
            const row = await repo.insertComment({
              id: randomUUID(),
              postId,
              parentId: parent?.id ?? null,
              ownerId: users[s.owner]!.user.id,
              text: "A comment",
              languageCode: "en-gb",
              attachments: "[]",
              createdAt: at,
              updatedAt: at,
              editStatus: "None",
              isDeleted: s.isDeleted ? 1 : 0,
              isSpam: s.isSpam ? 1 : 0,
            });
            made.push({ id: row.id, postId });
          }
          const me = requester === null ? null : users[requester]!.user.id;
          const both = await repo.commentsPreview("postId", [post.id, other.id], take, me, order);
          const one = await repo.commentsPreview("postId", [post.id], take, me, order);
          expect(one).toEqual(both.filter((r) => r.postId === post.id));
          for (const parent of made.slice(0, 3)) {
            const several = await repo.commentsPreview("parentId", [parent.id, made.at(-1)!.id], take, me, order);
            const single = await repo.commentsPreview("parentId", [parent.id], take, me, order);
            expect(single).toEqual(several.filter((r) => r.parentId === parent.id));
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
