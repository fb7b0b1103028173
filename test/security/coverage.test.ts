import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANY_AUTHENTICATED } from "../../src/core/scopes.js";
import { type Harness, startHarness } from "../support/harness.js";
import {
  ALL_SECURITY_CASES,
  coverageProblems,
  type RegisteredRoute,
  SECURITY_CASES,
} from "../support/security-cases.js";

describe("the coverage check of the shared security suite", () => {
  const routes: RegisteredRoute[] = [
    { method: "GET", url: "/a/:id", access: { scopes: ["feed:read"] } },
    { method: "HEAD", url: "/a/:id", access: undefined },
    { method: "POST", url: "/b", access: { scopes: ANY_AUTHENTICATED, auth: "optional" } },
    { method: "GET", url: "/c", access: undefined },
    { method: "HEAD", url: "/c/", access: undefined },
  ];

  it("names each route without an entry, each stale or duplicate entry, and each disagreement", () => {
    expect(
      coverageProblems(routes, [
        { route: "GET /a/:id", scopes: ["feed:read", "feed:write"] },
        { route: "POST /b", scopes: ANY_AUTHENTICATED },
        { route: "POST /b", scopes: ["feed:write"], auth: "optional" },
        { route: "DELETE /gone", scopes: ["feed:write"] },
      ]),
    ).toEqual([
      "POST /b: more than one entry",
      "GET /a/:id: accepts feed:read, its entry expects feed:read feed:write",
      "HEAD /a/:id: not guarded as GET /a/:id is",
      "POST /b: accepts ANY_AUTHENTICATED, its entry expects feed:write",
      "GET /c: no entry in the shared security suite (test/support/security-cases.ts)",
      "DELETE /gone: an entry for no registered route",
    ]);
    expect(
      coverageProblems(
        [{ method: "GET", url: "/d", access: { scopes: ["feed:read"], auth: "optional" } }],
        [{ route: "GET /d", public: "a probe" }],
      ),
    ).toEqual(["GET /d: declares access, but its entry says it is public"]);
    expect(
      coverageProblems([{ method: "GET", url: "/d", access: undefined }], [{ route: "GET /d", scopes: ["feed:read"] }]),
    ).toEqual(["GET /d: declares no access, but its entry expects a guarded route"]);
    expect(
      coverageProblems(
        [{ method: "GET", url: "/d", access: { scopes: ["feed:read"], auth: "optional" } }],
        [{ route: "GET /d", scopes: ["feed:read"] }],
      ),
    ).toEqual(["GET /d: auth is optional, its entry expects required"]);
  });

  it("is satisfied by one matching entry per route (HEAD twins covered by their GET)", () => {
    const twin = routes[0]!.access;
    const consistent = routes.map((r) => (r.url === "/a/:id" ? { ...r, access: twin } : r));
    expect(
      coverageProblems(consistent, [
        { route: "GET /a/:id", scopes: ["feed:read"] },
        { route: "POST /b", scopes: ANY_AUTHENTICATED, auth: "optional" },
        { route: "GET /c", public: "a probe" },
      ]),
    ).toEqual([]);
  });
});

describe("the shared security suite covers the app", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("sqlite");
  });
  afterAll(async () => h.close());

  it("has exactly one entry for every registered route, saying what the route declares", () => {
    expect(h.app.routeTable.length).toBeGreaterThan(ALL_SECURITY_CASES.length);
    expect(coverageProblems(h.app.routeTable, ALL_SECURITY_CASES)).toEqual([]);
  });

  it("runs every entry: each share of the cases has its file here, and each file runs its own share", () => {
    const dir = new URL(".", import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith(".test.ts") && f !== "coverage.test.ts");
    expect(files.map((f) => f.replace(/\.test\.ts$/, "")).sort()).toEqual(Object.keys(SECURITY_CASES).sort());
    for (const file of files) {
      const share = file.replace(/\.test\.ts$/, "");
      expect(readFileSync(new URL(file, dir), "utf8"), file).toContain(`runSecurityCases("${share}")`);
    }
  });
});
