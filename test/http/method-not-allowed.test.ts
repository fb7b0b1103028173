import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, rid, startHarness } from "../support/harness.js";
import { ALL_SECURITY_CASES, methodOf, urlOf } from "../support/security-cases.js";

const POST_ID = "00000000-0000-4000-8000-000000000001";
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

// The router's answer, not the store's: one engine is enough.
describe("a known path asked with a method it does not have", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("sqlite");
  });
  afterAll(async () => h.close());

  const send = (method: string, url: string, headers: Record<string, string> = {}) =>
    h.app.inject({ method: method as "GET", url, headers: { "x-request-id": rid(), ...headers } });

  it.each([
    ["POST", "/api/v1/me", "GET, HEAD"],
    ["DELETE", "/api/v1/me?x=1", "GET, HEAD"],
    ["PUT", "/api/v1/notifications/messages", "GET, HEAD, PATCH"],
    ["PATCH", "/api/v1/watchlists/00000000-0000-4000-8000-000000000004", "GET, HEAD, PUT, DELETE"],
    ["GET", `/api/v1/posts/${POST_ID}/likes`, "POST, DELETE"],
    ["PUT", `/api/v1/posts/${POST_ID}/comments/c1/replies/r1/likes`, "POST, DELETE"],
    // `shares` is a static segment for POST, and a post id for GET, PUT and DELETE: the router decides.
    ["PATCH", "/api/v1/posts/shares", "GET, HEAD, POST, PUT, DELETE"],
    ["GET", "/oauth/token", "POST"],
    ["HEAD", "/api/v1/posts", "POST"],
  ])("%s %s: 405 MethodNotAllowed, Allow: %s, in the one error body", async (method, url, allow) => {
    const res = await send(method, url);
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe(allow);
    if (method === "HEAD") return; // no body on a HEAD answer
    expect(res.json()).toEqual({
      errorCode: "MethodNotAllowed",
      errorMessage: `${url.split("?")[0]} has no ${method} operation; it answers ${allow}`,
      requestId: res.headers["x-request-id"],
    });
  });

  it("answers before credentials are looked at, as the 404 of an unknown path does", async () => {
    const res = await send("POST", "/api/v1/me", { "x-api-key": "sta_ak_only-one" });
    expect(res.statusCode).toBe(405);
  });

  it("an unknown path is still a 404, whatever the method", async () => {
    for (const [method, url] of [
      ["GET", "/api/v1/nothing-here"],
      ["POST", "/api/v1/nothing-here"],
      ["DELETE", `/api/v1/posts/${POST_ID}/nothing`],
    ] as const) {
      const res = await send(method, url);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.headers.allow).toBeUndefined();
      expect(res.json()).toMatchObject({ errorCode: "NotFound", requestId: res.headers["x-request-id"] });
    }
  });

  it("leaves CORS as it was: a preflight is 204 on any path, another OPTIONS 400; a 405 carries the CORS headers", async () => {
    const origin = "https://app.example.com";
    const preflight = await send("OPTIONS", "/api/v1/me", { origin, "access-control-request-method": "POST" });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers["access-control-allow-methods"]).toContain("DELETE");
    expect((await send("OPTIONS", "/api/v1/me")).statusCode).toBe(400);
    const refused = await send("POST", "/api/v1/me", { origin });
    expect(refused.statusCode).toBe(405);
    expect(refused.headers["access-control-allow-origin"]).toBe("*");
    expect(String(refused.headers["access-control-expose-headers"])).toContain("Allow");
  });

  it("on every path of the suite, Allow names exactly the methods that are routed there", async () => {
    const urls = [...new Set(ALL_SECURITY_CASES.filter((c) => methodOf(c) !== "OPTIONS").map(urlOf))];
    expect(urls.length).toBeGreaterThan(50);
    for (const url of urls) {
      const answers = await Promise.all(METHODS.map(async (m) => [m, await send(m, url)] as const));
      const routed = answers.filter(([, res]) => res.statusCode !== 405).map(([m]) => m);
      const allows = new Set(answers.filter(([, res]) => res.statusCode === 405).map(([, res]) => res.headers.allow));
      expect(routed.length, url).toBeGreaterThan(0);
      if (routed.length === METHODS.length) {
        expect(allows.size, url).toBe(0);
        continue;
      }
      const expected = routed.flatMap((m) => (m === "GET" ? ["GET", "HEAD"] : [m])).join(", ");
      expect([...allows], url).toEqual([expected]);
    }
  });
});
