import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentsRepository, WINDOWED_COMMENTS_MAX } from "../../src/modules/social/comments/comments.repository.js";
import type { CommentRow } from "../../src/modules/social/shared/social.rows.js";
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

// A comment preview is read by a `limit` arm per busy parent, one window over the quiet ones, and
// not at all for a parent without comments (decision 0197). Every way must show what the rules say:
// each parent's first `take` visible comments (not deleted, not spam, nobody blocked either way
// with the requester; a post's top level only) by `seq` in the order asked, all in that order.
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

  it("show each parent's first visible comments, however they are read", async () => {
    const repo = commentsRepository(h.deps.db.kysely);
    const padding = Array.from({ length: 3 }, () => randomUUID());
    await fc.assert(
      fc.asyncProperty(
        fc.array(spec, { minLength: 0, maxLength: 30 }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom<"asc" | "desc">("asc", "desc"),
        fc.constantFrom(null, 0, 2, 3),
        async (specs, take, order, requester) => {
          const post = await c.post(users[0]!, { message: "Previewed" });
          const other = await c.post(users[1]!, { message: "Beside it" });
          const made: (CommentRow & { owner: number })[] = [];
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
            made.push({ ...row, owner: s.owner });
          }
          const me = requester === null ? null : users[requester]!.user.id;
          const blockedPair = (a: number | null, b: number) => (a === 2 && b === 3) || (a === 3 && b === 2);
          const shown = (m: (typeof made)[number]) =>
            m.isDeleted === 0 && m.isSpam === 0 && !blockedPair(requester, m.owner);
          const bySeq = (a: { seq: number }, b: { seq: number }) => (order === "asc" ? a.seq - b.seq : b.seq - a.seq);
          const expected = (parents: readonly string[], of: (m: (typeof made)[number]) => string | null) =>
            parents
              .flatMap((p) =>
                made
                  .filter((m) => of(m) === p && shown(m))
                  .sort(bySeq)
                  .slice(0, take),
              )
              .sort(bySeq)
              .map((m) => m.id);
          const ids = (rows: readonly CommentRow[]) => rows.map((r) => r.id);
          const topOf = (m: (typeof made)[number]) => (m.parentId === null ? m.postId : null);
          // What the post's figures count: visible top-level comments, blocks aside.
          const counted = (postId: string) =>
            made.filter((m) => m.postId === postId && m.parentId === null && m.isDeleted === 0 && m.isSpam === 0)
              .length;
          const counts = new Map([post.id, other.id].map((id) => [id, counted(id)]));
          const busyPost = new Map([...counts, [post.id, counted(post.id) + WINDOWED_COMMENTS_MAX]]);
          for (const parents of [[post.id], [post.id, other.id], [post.id, other.id, ...padding]]) {
            for (const sizes of [undefined, counts, busyPost]) {
              const rows = await repo.commentsPreview("postId", parents, take, me, order, sizes);
              expect(ids(rows)).toEqual(expected(parents, topOf));
            }
          }
          const commentIds = made.map((m) => m.id);
          for (const parents of [commentIds.slice(0, 1), commentIds.slice(0, 5), [...commentIds, ...padding]]) {
            if (parents.length === 0) continue;
            const rows = await repo.commentsPreview("parentId", parents, take, me, order);
            expect(ids(rows)).toEqual(expected(parents, (m) => m.parentId));
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
