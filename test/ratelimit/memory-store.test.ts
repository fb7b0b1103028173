import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryRateLimitStore } from "../../src/infra/ratelimit/memory.js";

const stores: MemoryRateLimitStore[] = [];
function storeAt(start = 1_000_000) {
  const clock = { t: start };
  const store = new MemoryRateLimitStore(() => clock.t);
  stores.push(store);
  return { store, clock };
}
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

const pool = (name: string, max: number, windowMs = 60_000) => ({ pool: name, max, windowMs });

describe("memory rate-limit store", () => {
  it("admits max requests per window, refuses the next, and reports the reset", async () => {
    const { store, clock } = storeAt();
    const limits = [pool("default", 60)];
    for (let i = 1; i <= 60; i++) {
      const r = await store.consume("a", limits);
      expect(r.admitted).toBe(true);
      expect(r.states[0]!.count).toBe(i);
      clock.t += 100;
    }
    const refused = await store.consume("a", limits);
    expect(refused.admitted).toBe(false);
    expect(refused.states[0]).toEqual({ count: 60, resetMs: 60_000 - 6_000 });
  });

  it("opens a new window once the old one has run out", async () => {
    const { store, clock } = storeAt();
    const limits = [pool("default", 2, 1_000)];
    await store.consume("a", limits);
    await store.consume("a", limits);
    expect((await store.consume("a", limits)).admitted).toBe(false);
    clock.t += 999;
    expect((await store.consume("a", limits)).admitted).toBe(false);
    clock.t += 1;
    const again = await store.consume("a", limits);
    expect(again.admitted).toBe(true);
    expect(again.states[0]).toEqual({ count: 1, resetMs: 1_000 });
  });

  it("keeps callers and pools apart", async () => {
    const { store } = storeAt();
    expect((await store.consume("a", [pool("feed", 1)])).admitted).toBe(true);
    expect((await store.consume("a", [pool("feed", 1)])).admitted).toBe(false);
    expect((await store.consume("b", [pool("feed", 1)])).admitted).toBe(true);
    expect((await store.consume("a", [pool("default", 1)])).admitted).toBe(true);
  });

  it("counts in no pool when one pool refuses", async () => {
    const { store } = storeAt();
    const both = [pool("default", 60), pool("notifications", 1, 1_000)];
    expect((await store.consume("a", both)).admitted).toBe(true);
    const refused = await store.consume("a", both);
    expect(refused.admitted).toBe(false);
    expect(refused.states.map((s) => s.count)).toEqual([1, 1]);
    expect((await store.consume("a", [pool("default", 60)])).states[0]!.count).toBe(2);
  });

  it("sweeps expired windows", async () => {
    const { store, clock } = storeAt();
    await store.consume("a", [pool("p", 5, 1_000)]);
    await store.consume("b", [pool("p", 5, 5_000)]);
    clock.t += 2_000;
    store.sweep();
    expect(store.size).toBe(1);
  });

  it("property: within one window exactly min(n, max) of n requests are admitted, and all-or-nothing holds", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 120 }),
        async (maxA, maxB, useBoth) => {
          const { store } = storeAt();
          let admittedA = 0;
          let admittedB = 0;
          for (const both of useBoth) {
            const limits = both ? [pool("a", maxA), pool("b", maxB)] : [pool("a", maxA)];
            const r = await store.consume("caller", limits);
            const expected = admittedA < maxA && (!both || admittedB < maxB);
            expect(r.admitted).toBe(expected);
            if (r.admitted) {
              admittedA += 1;
              if (both) admittedB += 1;
            }
            expect(r.states[0]!.count).toBe(admittedA);
            if (both) expect(r.states[1]!.count).toBe(admittedB);
          }
          expect(admittedA).toBeLessThanOrEqual(maxA);
          expect(admittedB).toBeLessThanOrEqual(maxB);
          await store.close();
        },
      ),
    );
  });
});
