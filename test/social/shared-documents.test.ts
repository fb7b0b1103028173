import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CallerMarks } from "../../src/modules/social/shared/caller-marks.repository.js";
import { SocialReadCache } from "../../src/modules/social/shared/read-cache.js";
import {
  docSize,
  pushOverlaid,
  type SharedDoc,
  SharedParts,
  sharedBytes,
  sharedDocOf,
} from "../../src/modules/social/shared/shared-documents.js";

/*
 * Shared documents (docs/decisions/0169, 0170): a discussion serialized once with every per-caller
 * flag false, answered to a caller by rewriting the flags that are true for them. The end-to-end
 * check (every write, byte for byte against an uncached app) is test/social/read-cache.test.ts.
 */

const context = (flags: Record<string, boolean>) => ({
  isOwner: flags.isOwner ?? false,
  isFlaggingAsSpam: false,
  isSubscribed: flags.followed ?? false,
  isLiking: flags.isLiking ?? false,
  isSaved: flags.isSaved ?? false,
  isPinned: flags.isPinned ?? false,
  isRequesterBlocking: false,
  isInteractionRestricted: false,
  isFollowing: flags.followed ?? false,
});

/** A discussion shaped as the serializer writes it, with texts that look like flags and wide characters. */
function discussion(me: string, m: CallerMarks, text = 'Hé "isLiking":false, \\"isOwner":false € 😀') {
  const comment = (id: string, owner: string, text: string) => ({
    entity: { id, owner: { id: owner, username: owner }, message: { text } },
    repliesCount: 0,
    replies: [] as unknown[],
    requesterContext: { isOwner: me === owner, isLiking: m.liked.has(id), isFlaggingAsSpam: false },
  });
  return {
    id: "p1",
    post: {
      id: "p1",
      owner: { id: "alice", username: "alice", isBlocked: false },
      message: { text },
      metadata: {
        poll: {
          id: 3,
          options: [7, 8, 9].map((id) => ({ id, text: `"isUserVoted":false ${id}`, isUserVoted: m.voted.has(id) })),
        },
      },
    },
    commentsData: {
      comments: [comment("c1", "bob", "première"), comment("c2", "carol", '"isOwner":true')],
    },
    requesterContext: context({
      isOwner: me === "alice",
      isLiking: m.liked.has("p1"),
      isSaved: m.saved.has("p1"),
      isPinned: m.pinned.has("p1"),
      followed: m.followed.has("p1"),
    }),
    summary: { totalCommentsAndReplies: 2 },
  };
}

/** The discussion with every character outside printable ASCII replaced: a text of one-byte characters (0199). */
const oneByte = (me: string, m: CallerMarks) =>
  JSON.stringify(discussion(me, m, 'plain \\"isOwner":false')).replace(/[^ -~]/g, "e");

const owners = new Map([
  ["p1", "alice"],
  ["c1", "bob"],
  ["c2", "carol"],
]);

const CUT = { cutProfiles: true };

const noMarks = (): CallerMarks => ({
  liked: new Set(),
  saved: new Set(),
  pinned: new Set(),
  followed: new Set(),
  voted: new Set(),
  blocks: false,
  isPrivate: false,
});

const overlaid = (doc: SharedDoc, me: string, marks: CallerMarks) => {
  const parts: Buffer[] = [];
  pushOverlaid(parts, doc, me, marks);
  return Buffer.concat(parts).toString();
};

describe("shared documents", () => {
  const doc = sharedDocOf(JSON.stringify(discussion("", noMarks())), owners, CUT)!;

  it("finds every per-caller flag of the post, its poll and its comments, and none inside texts", () => {
    expect(doc).not.toBeNull();
    // Post: isOwner, isSubscribed, isLiking, isSaved, isPinned, isFollowing; 3 options; 2 comments × 2.
    expect(doc.slots).toHaveLength(6 + 3 + 4);
    expect(doc.likedIds.sort()).toEqual(["c1", "c2", "p1"]);
    expect(doc.optionIds).toEqual([7, 8, 9]);
  });

  it("answers each caller exactly what serializing the caller's own view gives", () => {
    const ids = fc.constantFrom("p1", "c1", "c2");
    fc.assert(
      fc.property(
        fc.constantFrom("alice", "bob", "carol", "dave"),
        fc.uniqueArray(ids),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.uniqueArray(fc.constantFrom(7, 8, 9), { maxLength: 1 }),
        (me, liked, saved, pinned, followed, voted) => {
          const marks = noMarks();
          for (const id of liked) marks.liked.add(id);
          if (saved) marks.saved.add("p1");
          if (pinned) marks.pinned.add("p1");
          if (followed) marks.followed.add("p1");
          for (const id of voted) marks.voted.add(id);
          expect(overlaid(doc, me, marks)).toBe(JSON.stringify(discussion(me, marks)));
        },
      ),
    );
  });

  it("finds the slots of a text of one-byte characters at their character index", () => {
    const ascii = sharedDocOf(oneByte("", noMarks()), owners, CUT)!;
    const marks = noMarks();
    marks.liked.add("c2");
    marks.voted.add(9);
    expect(overlaid(ascii, "bob", marks)).toBe(oneByte("bob", marks));
  });

  it("sends a caller with nothing true the shared bytes themselves: its own and its profiles', no copy", () => {
    const parts: Buffer[] = [];
    pushOverlaid(parts, doc, "dave", noMarks());
    expect(Buffer.concat(parts).toString()).toBe(JSON.stringify(discussion("", noMarks())));
    expect(parts.every((p) => p.buffer === doc.bytes.buffer || doc.fragments.includes(p))).toBe(true);
  });

  it("keeps a document whole when asked, and sends it as it is to a caller with nothing true", () => {
    const whole = sharedDocOf(JSON.stringify(discussion("", noMarks())), owners, { cutProfiles: false })!;
    const parts: Buffer[] = [];
    pushOverlaid(parts, whole, "dave", noMarks());
    expect(parts).toEqual([whole.bytes]);
    expect(parts[0]).toBe(whole.bytes);
  });

  it("cuts every profile out and holds each once, for every document that shows it", () => {
    // The post's owner and the two comments' owners.
    expect(doc.fragments.map((f) => JSON.parse(f.toString()).id)).toEqual(["alice", "bob", "carol"]);
    const again = sharedDocOf(JSON.stringify(discussion("", noMarks())), owners, CUT)!;
    expect(again.fragments).toHaveLength(3);
    for (const [i, fragment] of again.fragments.entries()) expect(fragment).toBe(doc.fragments[i]);
    expect(doc.bytes.toString()).not.toContain('"username"');
  });

  it("gives back the serialization byte for byte whatever the profiles' texts (braces, quotes, escapes, wide characters)", () => {
    const text = fc.string({ unit: "binary", maxLength: 12 });
    fc.assert(
      fc.property(text, text, text, fc.boolean(), (first, second, message, liked) => {
        const value = (me: string, m: CallerMarks) => {
          const d = discussion(me, m);
          d.post.owner = { ...d.post.owner, username: first, firstName: second } as typeof d.post.owner;
          d.post.message.text = message;
          return d;
        };
        const marks = noMarks();
        if (liked) marks.liked.add("c1");
        const shared = sharedDocOf(JSON.stringify(value("", noMarks())), owners, CUT)!;
        expect(sharedBytes(shared).toString()).toBe(JSON.stringify(value("", noMarks())));
        expect(overlaid(shared, "bob", marks)).toBe(JSON.stringify(value("bob", marks)));
      }),
    );
  });

  it("refuses a document whose flags it cannot place (an unknown owner, a flag already true)", () => {
    expect(sharedDocOf(JSON.stringify(discussion("", noMarks())), new Map([["p1", "alice"]]), CUT)).toBeNull();
    expect(sharedDocOf(JSON.stringify(discussion("alice", noMarks())), owners, CUT)).toBeNull();
  });
});

describe("the byte budget", () => {
  it("holds the shared parts within READ_CACHE_MB's bytes however many are kept", async () => {
    const budget = 64 * 1024;
    const cache = new SocialReadCache({ maxBytes: budget, maxAgeMs: 60_000 });
    const parts = new SharedParts(cache);
    const base = JSON.stringify(discussion("", noMarks()));
    let kept = 0;
    for (let i = 0; i < 400; i++) {
      const key = `F\u0000p${i}`;
      const json = base.replace('"summary"', `"pad":"${"x".repeat((i * 37) % 900)}","summary"`);
      const [got] = await parts.get<SharedDoc>([key], async () => {
        const value = sharedDocOf(json, owners, CUT)!;
        return new Map([[key, { value, size: docSize(value, key), deps: [`post:p${i}`] }]]);
      });
      expect(sharedBytes(got!).toString()).toBe(json);
      kept += docSize(got!, key);
      const { bytes, entries } = cache.stats();
      expect(bytes).toBeLessThanOrEqual(budget);
      expect(entries).toBeGreaterThan(0);
    }
    // Far more was offered than the budget holds: the oldest went first, the newest is still there.
    expect(kept).toBeGreaterThan(budget * 5);
    expect(parts.peek("F\u0000p0")).toBeUndefined();
    expect(parts.peek("F\u0000p399")).toBeDefined();
    // A part larger than the whole budget is answered but never kept.
    const huge = base.replace('"summary"', `"pad":"${"y".repeat(budget)}","summary"`);
    const [big] = await parts.get<SharedDoc>(["big"], async () => {
      const value = sharedDocOf(huge, owners, CUT)!;
      return new Map([["big", { value, size: docSize(value, "big"), deps: [] }]]);
    });
    expect(sharedBytes(big!).length).toBeGreaterThan(budget);
    expect(parts.peek("big")).toBeUndefined();
    expect(cache.stats().bytes).toBeLessThanOrEqual(budget);
  });

  it("drops a part once a post it was made of changes, and builds it once for callers asking together", async () => {
    const cache = new SocialReadCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    const parts = new SharedParts(cache);
    let builds = 0;
    const build = async (missing: string[]) => {
      builds++;
      await new Promise((r) => setTimeout(r, 5));
      const value = sharedDocOf(JSON.stringify(discussion("", noMarks())), owners, CUT)!;
      return new Map(missing.map((k) => [k, { value, size: docSize(value, k), deps: ["post:p1"] }]));
    };
    const together = await Promise.all([parts.get(["d"], build), parts.get(["d"], build), parts.get(["d"], build)]);
    expect(builds).toBe(1);
    expect(together.every(([d]) => d !== undefined)).toBe(true);
    expect(parts.peek("d")).toBeDefined();
    cache.changed({ postIds: ["p1"], userIds: [], listings: false });
    expect(parts.peek("d")).toBeUndefined();
    await parts.get(["d"], build);
    expect(builds).toBe(2);
  });
});
