import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AlertIndex, type WatchedAlert } from "../../src/modules/price-alerts/alert-index.js";

// Few ids, instruments and prices, so that replacements, ties on a target and bids equal to a
// target come up often.
const idArb = fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h");
const instrumentArb = fc.integer({ min: 1, max: 3 });
const priceArb = fc.integer({ min: 1, max: 12 }).map((n) => n / 4);

type Op =
  | { op: "add"; alert: WatchedAlert; scribble: boolean }
  | { op: "remove"; alertId: string }
  | { op: "update"; instrumentId: number; bid: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant("add" as const),
    alert: fc.record({
      alertId: idArb,
      instrumentId: instrumentArb,
      targetPrice: priceArb,
      direction: fc.constantFrom("above" as const, "below" as const),
    }),
    // The caller changes its object after handing it over: the index must not be affected.
    scribble: fc.boolean(),
  }),
  fc.record({ op: fc.constant("remove" as const), alertId: idArb }),
  fc.record({ op: fc.constant("update" as const), instrumentId: instrumentArb, bid: priceArb }),
);

const reaches = (a: WatchedAlert, bid: number) =>
  a.direction === "above" ? a.targetPrice <= bid : a.targetPrice >= bid;
const byId = (a: WatchedAlert, b: WatchedAlert) => (a.alertId < b.alertId ? -1 : a.alertId > b.alertId ? 1 : 0);

describe("AlertIndex against a linear scan (decision 0121)", () => {
  it("fires on each price exactly the alerts a scan of the watched ones would, each at most once", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => {
        const index = new AlertIndex();
        const model = new Map<string, WatchedAlert>();
        // Ids fired since they were last added: firing one again would be a second firing.
        const firedSinceAdd = new Set<string>();
        for (const step of ops) {
          if (step.op === "add") {
            const given = { ...step.alert };
            index.add(given);
            model.set(given.alertId, { ...step.alert });
            firedSinceAdd.delete(given.alertId);
            if (step.scribble) {
              given.targetPrice = -given.targetPrice;
              given.alertId = `${given.alertId}!`;
            }
          } else if (step.op === "remove") {
            index.remove(step.alertId);
            model.delete(step.alertId);
          } else {
            const expected = [...model.values()]
              .filter((a) => a.instrumentId === step.instrumentId && reaches(a, step.bid))
              .sort(byId);
            for (const a of expected) model.delete(a.alertId);
            const fired = index.update(step.instrumentId, step.bid);
            expect([...fired].sort(byId)).toEqual(expected);
            for (const a of fired) {
              expect(firedSinceAdd.has(a.alertId)).toBe(false);
              firedSinceAdd.add(a.alertId);
            }
          }
          expect(index.size).toBe(model.size);
          for (const id of ["a", "b", "c", "d", "e", "f", "g", "h"]) expect(index.has(id)).toBe(model.has(id));
        }
      }),
      { numRuns: 500 },
    );
  });
});
