import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { byteOffsets, listAt, valueAt } from "../../src/modules/social/shared/json-text.js";

/*
 * The scanner that finds a part's list and its items in a serializer's text without parsing it
 * (docs/decisions/0209). Texts are JSON.stringify's, which writes no whitespace, as
 * fast-json-stringify does: siblings with any keys (quotes, escapes, wide characters) and values
 * of every kind must be stepped over exactly.
 */

const name = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9]{0,8}$/);
const anyKey = fc.string({ unit: "grapheme", maxLength: 6 });
const siblings = fc.array(fc.tuple(anyKey, fc.jsonValue({ maxDepth: 3 })), { maxLength: 4 });
const items = fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 8 });

/** An object with `key` set to `value` among `before` and `after` (a sibling named `key` is dropped). */
function objectWith(key: string, value: unknown, before: [string, unknown][], after: [string, unknown][]) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of before) if (k !== key && k !== "__proto__") out[k] = v;
  out[key] = value;
  for (const [k, v] of after) if (!(k in out) && k !== "__proto__") out[k] = v;
  return out;
}

describe("finding a list in a serializer's text", () => {
  it("finds the array under a path of keys among siblings of any kind: each item exactly its text, and its end", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, siblings, siblings), { minLength: 1, maxLength: 3 }),
        items,
        (levels, list) => {
          let value: unknown = list;
          for (const [key, before, after] of [...levels].reverse()) value = objectWith(key, value, before, after);
          const json = JSON.stringify(value);
          const found = listAt(
            json,
            levels.map(([key]) => key),
          );
          expect(found?.items.map((r) => json.slice(...r))).toEqual(list.map((item) => JSON.stringify(item)));
          const text = JSON.stringify(list);
          expect(json.slice(found!.end - text.length, found!.end)).toBe(text);
          const path = levels.map(([key]) => key);
          expect(valueAt(json, path)).toEqual(JSON.parse(text));
        },
      ),
    );
  });

  it("reads a value of one item, starting at the item, whatever its siblings", () => {
    const item = fc.tuple(name, fc.jsonValue({ maxDepth: 2 }), siblings, siblings);
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 5 }), (specs) => {
        const list = specs.map(([key, value, before, after]) => objectWith(key, value, before, after));
        const json = JSON.stringify({ list });
        const found = listAt(json, ["list"]);
        for (const [i, [key, value]] of specs.entries()) {
          expect(valueAt(json, [key], found!.items[i]![0])).toEqual(JSON.parse(JSON.stringify(value)));
        }
      }),
    );
  });

  it("finds no list under a key the object does not have, or whose value is not an array", () => {
    fc.assert(
      fc.property(siblings, name, fc.jsonValue({ maxDepth: 2 }), (pairs, key, other) => {
        const without = pairs.filter(([k]) => k !== key && k !== "__proto__");
        expect(listAt(JSON.stringify(Object.fromEntries(without)), [key])).toBeNull();
        if (!Array.isArray(other)) expect(listAt(JSON.stringify({ [key]: other }), [key])).toBeNull();
      }),
    );
  });

  it("steps over profiles cut out of a document's own text (an empty value after a key)", () => {
    const profile = fc.dictionary(anyKey, fc.jsonValue({ maxDepth: 2 }));
    const item = fc.tuple(name, fc.jsonValue({ maxDepth: 2 }), profile, siblings);
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 5 }), (specs) => {
        const list = specs.map(([key, value, owner, before]) => ({
          ...objectWith("owner", owner, before, []),
          ...(key === "owner" ? {} : { [key]: value }),
        }));
        // Each profile out, as `cutProfiles` leaves the text: `"owner":` then the next key or `}`.
        const json = JSON.stringify({ list }).replace(/"owner":/g, '"owner":\u0000');
        let cut = json;
        for (const [, , owner] of specs) cut = cut.replace(`"owner":\u0000${JSON.stringify(owner)}`, '"owner":');
        const found = listAt(cut, ["list"]);
        expect(found?.items).toHaveLength(specs.length);
        for (const [i, [key, value]] of specs.entries()) {
          if (key === "owner") continue;
          expect(valueAt(cut, [key], found!.items[i]![0])).toEqual(JSON.parse(JSON.stringify(value)));
        }
      }),
    );
  });

  it("gives the byte offsets of char indexes in the text's UTF-8", () => {
    // Indexes between characters, as a token's always is: never between a surrogate pair's halves.
    const between = (text: string, i: number) => !/[\uDC00-\uDFFF]/.test(text[i] ?? "");
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.array(fc.nat(), { maxLength: 5 }), (text, picks) => {
        const at = [...new Set(picks.map((p) => p % (text.length + 1)))]
          .filter((i) => between(text, i))
          .sort((a, b) => a - b);
        expect(byteOffsets(text, at)).toEqual(at.map((i) => Buffer.byteLength(text.slice(0, i))));
      }),
    );
  });
});
