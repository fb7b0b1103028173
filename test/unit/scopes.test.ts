import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { requireUser } from "../../src/core/access.js";
import { ANONYMOUS, systemActor, type UserActor } from "../../src/core/actor.js";
import type { AppError } from "../../src/core/errors.js";
import { hasAnyScope, KNOWN_SCOPES, normalizeScope } from "../../src/core/scopes.js";

const user = (scopes: string[]): UserActor => ({
  kind: "user",
  userId: "u",
  gcid: 1,
  via: "key-pair",
  credentialId: "k",
  scopes,
  environment: "demo",
});

describe("scopes", () => {
  it.each([
    ["feed:read", "feed:read"],
    ["service-public:feed:read", "feed:read"],
    ["  trade.demo:write ", "trade.demo:write"],
    ["money:transfer", "money:transfer"],
    ["etoro-public:feed:read", null],
    ["feed:delete", null],
    ["service-public:", null],
    ["", null],
  ])("normalizes %j to %j", (input, expected) => {
    expect(normalizeScope(input, "service-public")).toBe(expected);
  });

  it("honours a configured prefix", () => {
    expect(normalizeScope("acme:feed:read", "acme")).toBe("feed:read");
    expect(normalizeScope("service-public:feed:read", "acme")).toBeNull();
  });

  it("accepts every known scope bare and prefixed, and only those", () => {
    const known = fc.constantFrom(...KNOWN_SCOPES);
    fc.assert(fc.property(known, (s) => normalizeScope(s, "p") === s && normalizeScope(`p:${s}`, "p") === s));
    fc.assert(
      fc.property(fc.string(), (s) => {
        const n = normalizeScope(s, "p");
        return n === null || (KNOWN_SCOPES as readonly string[]).includes(n);
      }),
    );
  });

  it.each([
    [["feed:read"], ["feed:read", "feed:write"], true],
    [["feed:write"], ["feed:read", "feed:write"], true],
    [["notifications:read"], ["feed:read"], false],
    [[], ["feed:read"], false],
    [[], [], true],
    [["demo:read"], ["trade.demo:read", "demo:read"], true],
  ])("any-of: granted %j, accepted %j → %s", (granted, accepted, expected) => {
    expect(hasAnyScope(granted, accepted)).toBe(expected);
  });

  it("any-of is exactly 'the sets intersect' (or nothing is required)", () => {
    const scopes = fc.subarray([...KNOWN_SCOPES]);
    fc.assert(
      fc.property(scopes, scopes, (granted, accepted) => {
        const intersect = accepted.some((a) => granted.includes(a));
        return hasAnyScope(granted, accepted) === (accepted.length === 0 || intersect);
      }),
    );
  });

  it("requireUser: 401 for anonymous and system callers, 403 without a scope, the actor otherwise", () => {
    const code = (f: () => unknown) => {
      try {
        f();
        return "ok";
      } catch (e) {
        return (e as AppError).code;
      }
    };
    expect(code(() => requireUser(ANONYMOUS, []))).toBe("Unauthorized");
    expect(code(() => requireUser(systemActor("x"), []))).toBe("Unauthorized");
    expect(code(() => requireUser(user(["feed:read"]), ["notifications:read"]))).toBe("InsufficientPermissions");
    expect(requireUser(user(["feed:read"]), ["feed:read"]).userId).toBe("u");
  });
});
