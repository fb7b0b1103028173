import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AscendingWalk, walkAscending } from "../../src/modules/people/search/value-walk.js";

interface Row {
  value: number;
  gcid: number;
  matches: boolean;
}

/** The walk over rows in memory, as the repository's queries answer it (decision 0188). */
function inMemory(rows: readonly Row[]): AscendingWalk<number, Row> {
  const matching = rows.filter((r) => r.matches);
  const byOrder = (a: Row, b: Row) => a.value - b.value || a.gcid - b.gcid;
  return {
    async nextValue(after) {
      const above = rows.filter((r) => after === undefined || r.value > after).map((r) => r.value);
      return above.length === 0 ? undefined : Math.min(...above);
    },
    async run(value, limit) {
      return matching
        .filter((r) => r.value === value)
        .sort((a, b) => a.gcid - b.gcid)
        .slice(0, limit);
    },
    async rest(after, limit, offset) {
      return matching
        .filter((r) => after === undefined || r.value > after)
        .sort(byOrder)
        .slice(offset, offset + limit);
    },
  };
}

describe("the ascending walk by value (decision 0188)", () => {
  it("gives the page of the rows ordered by value then gcid, whatever the ties, filters and step cap", async () => {
    const rows = fc
      .uniqueArray(fc.integer({ min: 1, max: 500 }), { maxLength: 60 })
      .chain((gcids) =>
        fc.tuple(
          ...gcids.map((gcid) =>
            fc.record({ value: fc.integer({ min: -3, max: 3 }), gcid: fc.constant(gcid), matches: fc.boolean() }),
          ),
        ),
      );
    await fc.assert(
      fc.asyncProperty(
        rows,
        fc.integer({ min: 0, max: 70 }),
        fc.integer({ min: 1, max: 25 }),
        fc.integer({ min: 1, max: 10 }),
        async (all, offset, limit, maxValues) => {
          const reference = all
            .filter((r) => r.matches)
            .sort((a, b) => a.value - b.value || a.gcid - b.gcid)
            .slice(offset, offset + limit);
          expect(await walkAscending(inMemory(all), offset, limit, maxValues)).toEqual(reference);
        },
      ),
      { numRuns: 500 },
    );
  });
});
