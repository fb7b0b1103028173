import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FaultBook } from "../../src/modules/sandbox/fault-book.js";
import { parsePriceCsv } from "../../src/modules/sandbox/prices.js";
import { SandboxPrices } from "../../src/modules/sandbox/sandbox-prices.js";

const call = { credentialId: "k1", userId: "u1", operationId: "getMe", route: "GET /api/v1/me" };
const base = { credentialId: "k1", userId: null, operation: "*", retryAfterSeconds: 1, delayMs: 1 } as const;

describe("the fault book", () => {
  it("a share p faults exactly ⌊n·p⌋ of the first n matching calls, the same calls every run", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 1, noNaN: true }), fc.integer({ min: 1, max: 400 }), (share, n) => {
        const runs = [0, 1].map(() => {
          const book = new FaultBook();
          book.add({ ...base, kind: "503", share }, "t");
          return Array.from({ length: n }, () => book.take(call) !== undefined);
        });
        expect(runs[1]).toEqual(runs[0]);
        expect(runs[0]!.filter(Boolean).length).toBe(Math.floor(n * share));
      }),
    );
  });

  it("a count faults exactly the next N matching calls, then disarms; other credentials and operations pass", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 60 }), (count, calls) => {
        const book = new FaultBook();
        book.add({ ...base, operation: "getMe", kind: "429", count }, "t");
        expect(book.take({ ...call, credentialId: "k2" })).toBeUndefined();
        expect(book.take({ ...call, operationId: "other", route: "GET /other" })).toBeUndefined();
        const faulted = Array.from({ length: calls }, () => book.take(call)).filter(Boolean).length;
        expect(faulted).toBe(Math.min(count, calls));
        expect(book.size).toBe(calls >= count ? 0 : 1);
      }),
    );
  });
});

describe("scripted prices", () => {
  it("CSV of mids or of bid,ask pairs, with or without a header, reads back as written", () => {
    const price = fc.double({ min: 0.0001, max: 1e6, noNaN: true });
    const row = fc.oneof(price, fc.record({ bid: price, ask: price }));
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 50 }), fc.boolean(), (rows, header) => {
        const text = (header ? ["bid,ask"] : [])
          .concat(rows.map((r) => (typeof r === "number" ? String(r) : `${r.bid},${r.ask}`)))
          .join("\n");
        expect(parsePriceCsv(text)).toEqual(rows);
      }),
    );
  });

  it("a paused instrument holds on timed ticks (its walk draws nothing) and plays its script on manual ones", () => {
    let draws = 0;
    const walk = {
      next: (_i: unknown, mid: number) => {
        draws += 1;
        return mid + 1;
      },
    };
    const prices = new SandboxPrices(walk);
    const instrument = { instrumentId: 1, priceSeed: 10, precision: 2, volatilityFactor: 1 };
    prices.pause([1]);
    prices.enqueue(1, [20, 21]);
    expect(prices.next(instrument, 10, 1)).toBeUndefined();
    expect(prices.next(instrument, 10, 2, { manual: true })).toBe(20);
    prices.resume();
    expect(prices.next(instrument, 20, 3)).toBe(21);
    expect(prices.next(instrument, 21, 4)).toBe(22);
    expect(draws).toBe(1);
  });
});
