import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FeedDocVariants, feedDocKey, feedDocPatcher } from "../../src/modules/social/feeds/feed-docs.js";
import { listAt } from "../../src/modules/social/shared/json-text.js";
import { sharedBytes, sharedDocOf, spliced } from "../../src/modules/social/shared/shared-documents.js";
import { discussionPartSerializers } from "../../src/modules/social/shared/social.schemas.js";

/*
 * The pieces a patch makes of a document whose profiles are cut out (docs/decisions/0210), and a
 * like from an instance that names no post seq. End to end: test/social/write-patches.test.ts.
 */

const NO_OWNERS: ReadonlyMap<string, string> = new Map();
const profile = fc.dictionary(
  fc.string({ unit: "grapheme", maxLength: 4 }),
  fc.string({ unit: "grapheme", maxLength: 6 }),
);
const item = fc.record({ id: fc.string({ unit: "grapheme", maxLength: 5 }), owner: profile });

describe("patching a document with cut profiles", () => {
  it("keeps the kept items' profiles and drops the others', as splicing the whole text would", () => {
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 6 }), item, fc.nat(), (items, added, k) => {
        const keep = k % (items.length + 1);
        const json = JSON.stringify({ list: items, after: { owner: { id: "x" } } });
        const doc = sharedDocOf(json, NO_OWNERS, { cutProfiles: true })!;
        expect(doc.cuts.length).toBe(items.length + 1);
        const own = doc.bytes.toString();
        const list = listAt(own, ["list"])!;
        const [at, end] = [list.items[0]![0] - 1, list.end].map((i) => Buffer.byteLength(own.slice(0, i)));
        const kept = list.items.slice(0, keep);
        const pieces =
          kept.length === 0
            ? [{ text: `[${JSON.stringify(added)}]` }]
            : [
                { text: `[${JSON.stringify(added)},` },
                {
                  from: Buffer.byteLength(own.slice(0, kept[0]![0])),
                  to: Buffer.byteLength(own.slice(0, kept.at(-1)![1])),
                },
                { text: "]" },
              ];
        const patched = spliced(doc, at!, end!, pieces, NO_OWNERS)!;
        const whole = JSON.stringify({ list: [added, ...items.slice(0, keep)], after: { owner: { id: "x" } } });
        expect(sharedBytes(patched).toString()).toBe(whole);
        expect(patched.cuts).toHaveLength(keep + 1);
        expect(patched.cuts).toEqual([...patched.cuts].sort((a, b) => a - b));
      }),
    );
  });

  it("builds the feed documents again on a like that names no post seq (an older instance's)", () => {
    const variants = new FeedDocVariants();
    variants.noteBuilt("p1", "request", 10);
    const patch = feedDocPatcher(variants, discussionPartSerializers());
    const like = { postId: "p1", id: "l1", seq: 9, userId: "u1", createdAt: "2026-01-01T00:00:00Z", owner: {} };
    const asked: string[] = [];
    const out = patch({ postIds: ["p1"], userIds: ["u1"], listings: false, like }, (key) => {
      asked.push(key);
      return undefined;
    });
    expect(out).toEqual([]);
    expect(asked).toEqual([]);
    // With its seq, the kept documents are looked up (none is kept here).
    patch({ postIds: ["p1"], userIds: ["u1"], listings: false, like: { ...like, postSeq: 3 } }, (key) => {
      asked.push(key);
      return undefined;
    });
    expect(asked).toEqual([feedDocKey("p1", "request", 10)]);
  });
});
