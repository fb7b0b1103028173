import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonical, requestHash } from "../../src/modules/trading/idempotency.js";

/** The first version of the canonical text, kept as the reference: a stored request hash was made with it. */
function firstCanonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(firstCanonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${firstCanonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** JSON-like values as a request body becomes after parsing, plus undefined members (optional fields left out). */
const member = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.constant(undefined),
    fc.boolean(),
    fc.double({ noNaN: true }),
    fc.integer(),
    fc.string({ unit: "binary" }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string({ unit: "binary", maxLength: 6 }), tie("value"), { maxKeys: 5 }),
  ),
})).value;

describe("the request hash's canonical text", () => {
  it("is the first version's text for any body", () => {
    fc.assert(
      fc.property(member, (value) => {
        expect(canonical(value)).toBe(firstCanonical(value));
      }),
      { numRuns: 2000 },
    );
  });

  it("does not depend on key order, and tells different bodies apart", () => {
    const a = { instrumentId: 1001, isBuy: true, leverage: 1, amount: 10, stopLossRate: undefined };
    const b = { amount: 10, leverage: 1, isBuy: true, instrumentId: 1001 };
    expect(requestHash("by-amount", a)).toBe(requestHash("by-amount", b));
    expect(requestHash("by-amount", a)).not.toBe(requestHash("by-units", b));
    expect(requestHash("by-amount", a)).not.toBe(requestHash("by-amount", { ...b, amount: 11 }));
    expect(canonical(a)).toBe('{"amount":10,"instrumentId":1001,"isBuy":true,"leverage":1}');
  });
});
