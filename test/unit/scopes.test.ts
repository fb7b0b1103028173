import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InsufficientPermissions, requireUser } from "../../src/core/access.js";
import { ANONYMOUS, systemActor, type UserActor } from "../../src/core/actor.js";
import type { AppError } from "../../src/core/errors.js";
import {
  type AcceptedScopes,
  ANY_AUTHENTICATED,
  acceptedScopesProblem,
  isAdmitted,
  KNOWN_SCOPES,
  normalizeScope,
  SCOPES,
  type Scope,
} from "../../src/core/scopes.js";

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

  it("the scope table says what every scope lets an application do", () => {
    expect(KNOWN_SCOPES).toEqual(Object.keys(SCOPES));
    for (const scope of KNOWN_SCOPES) expect(SCOPES[scope].length).toBeGreaterThan(5);
  });

  it.each<[string[], AcceptedScopes, boolean]>([
    [["feed:read"], ["feed:read", "feed:write"], true],
    [["feed:write"], ["feed:read", "feed:write"], true],
    [["notifications:read"], ["feed:read"], false],
    [[], ["feed:read"], false],
    [["demo:read"], ["trade.demo:read", "demo:read"], true],
    [[], ANY_AUTHENTICATED, true],
    [["user-info:read"], ANY_AUTHENTICATED, true],
  ])("any-of: granted %j, accepted %j → %s", (granted, accepted, expected) => {
    expect(isAdmitted(granted, accepted)).toBe(expected);
  });

  it("any-of is exactly 'the sets intersect'; only the explicit marker admits every user", () => {
    const granted = fc.subarray([...KNOWN_SCOPES]);
    const accepted = fc.subarray([...KNOWN_SCOPES], { minLength: 1 });
    fc.assert(
      fc.property(granted, accepted, (g, a) => {
        const intersect = a.some((s) => g.includes(s));
        return isAdmitted(g, a as unknown as AcceptedScopes) === intersect && isAdmitted(g, ANY_AUTHENTICATED);
      }),
    );
  });

  it("deny by default: an empty list (past the type, as untyped data) admits nobody", () => {
    const empty = [] as unknown as AcceptedScopes;
    expect(isAdmitted([...KNOWN_SCOPES], empty)).toBe(false);
    expect(() => requireUser(user([...KNOWN_SCOPES]), empty)).toThrow(InsufficientPermissions);
    // A look-alike of the marker is not the marker.
    const lookAlike = { description: "any authenticated user" } as unknown as AcceptedScopes;
    expect(isAdmitted([...KNOWN_SCOPES], lookAlike)).toBe(false);
  });

  it("an empty list, an unknown scope or a look-alike of the marker does not type-check, nor pass the route check", () => {
    // @ts-expect-error an empty list declares nothing: name the scopes, or use ANY_AUTHENTICATED
    const empty: AcceptedScopes = [];
    // @ts-expect-error not a scope
    const unknown: AcceptedScopes = ["feed:delete"];
    // @ts-expect-error only the constant is the marker
    const lookAlike: AcceptedScopes = { description: "any authenticated user" };
    expect([empty, unknown, lookAlike].map(acceptedScopesProblem).every((p) => p !== null)).toBe(true);
  });

  it("names what is wrong with a route's declared scopes, and accepts only a non-empty known list or the marker", () => {
    expect(acceptedScopesProblem(ANY_AUTHENTICATED)).toBeNull();
    expect(acceptedScopesProblem(["feed:read", "feed:write"])).toBeNull();
    expect(acceptedScopesProblem([])).toMatch(/admits nobody.*ANY_AUTHENTICATED/);
    expect(acceptedScopesProblem(["feed:read", "feed:delete"])).toBe("unknown scopes: feed:delete");
    expect(acceptedScopesProblem(undefined)).toMatch(/non-empty list/);
    expect(acceptedScopesProblem({ description: "any authenticated user" })).toMatch(/non-empty list/);
  });

  it("requireUser: 401 for anonymous and system callers, 403 naming the accepted scopes, the actor otherwise", () => {
    const code = (f: () => unknown) => {
      try {
        f();
        return "ok";
      } catch (e) {
        return (e as AppError).code;
      }
    };
    expect(code(() => requireUser(ANONYMOUS, ANY_AUTHENTICATED))).toBe("Unauthorized");
    expect(code(() => requireUser(systemActor("x"), ANY_AUTHENTICATED))).toBe("Unauthorized");
    expect(code(() => requireUser(user(["feed:read"]), ["notifications:read"]))).toBe("InsufficientPermissions");
    const accepted: [Scope, Scope] = ["trade.demo:write", "demo:write"];
    try {
      requireUser(user(["feed:read"]), accepted);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InsufficientPermissions);
      expect((e as InsufficientPermissions).accepted).toEqual(accepted);
    }
    expect(requireUser(user(["feed:read"]), ["feed:read"]).userId).toBe("u");
    expect(requireUser(user(["user-info:read"]), ANY_AUTHENTICATED).userId).toBe("u");
  });
});
