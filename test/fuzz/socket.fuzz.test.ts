/**
 * Malformations that only show over a real socket (bad percent-escapes reach the router as sent,
 * oversized request lines and headers are refused by Node's HTTP parser before Fastify): raw
 * requests written with node:net to a listening server, on SQLite and PostgreSQL. Fixed cases for
 * each defect, then fast-check (fixed seed; FUZZ_RUNS raises the count) over raw request lines,
 * paths and headers. Every answer must be < 500 and in the one error body with `x-request-id`.
 */
import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KNOWN_SCOPES } from "../../src/core/scopes.js";
import { engines, type Harness, startHarness } from "../support/harness.js";
import { problemsOf } from "./oracle.js";

const RUNS = Math.max(150, Math.floor(Number(process.env.FUZZ_RUNS ?? 0) / 10));
const SEED = Number(process.env.FUZZ_SEED ?? 20240612);

interface RawAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` as is and reads the answer until the server closes or sends a whole body. */
function raw(port: number, request: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to ${request.toString().slice(0, 120)}`));
    }, 5000);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString("latin1");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
      );
      resolve({
        statusCode: Number(statusLine.split(" ")[1]),
        headers,
        body: Buffer.from(rest.join("\r\n\r\n"), "latin1").toString("utf8"),
      });
    };
    socket.on("data", (d) => {
      chunks.push(d);
      const text = Buffer.concat(chunks).toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      const length = /content-length:\s*(\d+)/i.exec(text.slice(0, end))?.[1];
      if (end >= 0 && length !== undefined && Buffer.byteLength(text.slice(end + 4), "latin1") >= Number(length))
        finish();
    });
    socket.on("end", finish);
    socket.on("error", () => finish());
    socket.write(request);
  });
}

const get = (path: string, headers: Record<string, string> = {}) =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}Connection: close\r\n\r\n`;

describe.each(engines())("malformed requests over a real socket (%s)", (engine) => {
  let h: Harness;
  let port: number;
  let auth: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness(engine);
    const u = await h.user([...KNOWN_SCOPES]);
    auth = { "x-api-key": u.headers["x-api-key"]!, "x-user-key": u.headers["x-user-key"]! };
    await h.app.listen({ port: 0, host: "127.0.0.1" });
    port = (h.app.server.address() as { port: number }).port;
  });
  afterAll(async () => h?.close());

  /** The answer is `status` with `errorCode`, in the one body, and says nothing of the URL. */
  const expectError = (answer: RawAnswer, status: number, errorCode: string, notEchoed?: string) => {
    expect(answer.statusCode, answer.body).toBe(status);
    expect(problemsOf(answer)).toEqual([]);
    expect(answer.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(answer.body).errorCode).toBe(errorCode);
    if (notEchoed) expect(answer.body).not.toContain(notEchoed);
  };

  it("a bad percent-escape in the path: 400 BadRequest in the one body, the URL not echoed", async () => {
    for (const [path, bad] of [
      ["/api/v1/posts/%E0%A4%A/likes", "%E0%A4%A"],
      ["/api/v1/watchlists/%", "/api/v1/watchlists"],
      ["/api/v1/users/%zz/follows", "%zz"],
      ["/api/v1/feeds/users/%ED%A0%80", "%ED%A0%80"],
    ]) {
      expectError(await raw(port, get(path!, auth)), 400, "BadRequest", bad);
    }
    // The client's request id is kept, as on every other answer.
    const answer = await raw(port, get("/api/v1/watchlists/%", { ...auth, "x-request-id": "my-id-1" }));
    expect(answer.headers["x-request-id"]).toBe("my-id-1");
    expect(JSON.parse(answer.body).requestId).toBe("my-id-1");
  });

  it("a path parameter over 100 characters reaches the route's schema (422); over 1024, 414 UriTooLong", async () => {
    const long = await raw(port, get(`/api/v1/watchlists/${"w".repeat(150)}`, auth));
    expectError(long, 422, "ValidationFailed");
    expect(JSON.parse(long.body).details[0].field).toBe("params/watchlistId");
    const longer = "u".repeat(2000);
    expectError(await raw(port, get(`/api/v1/feeds/users/${longer}`, auth)), 414, "UriTooLong", longer);
  });

  it("an oversized header or URL: 431 HeadersTooLarge in the one body with x-request-id", async () => {
    expectError(await raw(port, get("/api/v1/me", { ...auth, "x-big": "b".repeat(20_000) })), 431, "HeadersTooLarge");
    expectError(
      await raw(port, get(`/api/v1/market-data/search?searchText=${"s".repeat(20_000)}`, auth)),
      431,
      "HeadersTooLarge",
    );
  });

  it("a request that is not HTTP: 400 BadRequest in the one body with x-request-id", async () => {
    expectError(await raw(port, "HELLO THERE\r\n\r\n"), 400, "BadRequest");
    expectError(
      await raw(port, "GET /api/v1/me HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"),
      400,
      "BadRequest",
    );
    expectError(
      await raw(port, Buffer.from("GET /api/v1/me HTTP/1.1\r\nX-A: \u0000\r\n\r\n", "latin1")),
      400,
      "BadRequest",
    );
  });

  it(`answers ${RUNS} random raw requests within the error model (fast-check, seed ${SEED})`, async () => {
    const segment = fc.oneof(
      fc.constantFrom("%", "%E0%A4%A", "%ED%A0%80", "%00", "%zz", "..", "%2F", "a".repeat(1500), "😀"),
      fc.string({ unit: "grapheme-ascii", maxLength: 40 }).map((s) => s.replace(/[\s?#]/g, "")),
      fc.stringMatching(/^[0-9a-f-]{0,40}$/),
    );
    const path = fc.tuple(
      fc.constantFrom(
        "/api/v1/posts/{}/likes",
        "/api/v1/watchlists/{}",
        "/api/v1/feeds/users/{}",
        "/api/v1/trading/info/demo/orders/{}",
        "/api/v1/posts/{}/comments/{}/likes",
        "/api/v1/market-data/search?searchText={}",
        "/api/v1/feeds/news?offset={}",
        "/{}",
      ),
      segment,
      segment,
    );
    const header = fc.tuple(
      fc.constantFrom("x-request-id", "x-api-key", "authorization", "content-type", "x-other", "content-length"),
      fc.oneof(
        fc.string({ unit: "grapheme-ascii", maxLength: 60 }),
        fc.constantFrom("b".repeat(20_000), "\u0000", "é"),
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "BREW", "get"),
        path,
        fc.array(header, { maxLength: 3 }),
        fc.boolean(),
        async (method, [template, a, b], headers, withAuth) => {
          let i = 0;
          const target = template.replace(/\{\}/g, () => (i++ === 0 ? a : b));
          const lines = [
            `${method} ${target} HTTP/1.1`,
            "Host: 127.0.0.1",
            ...(withAuth ? Object.entries(auth).map(([k, v]) => `${k}: ${v}`) : []),
            ...headers.map(([k, v]) => `${k}: ${v}`),
            "Connection: close",
          ];
          const answer = await raw(port, Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "utf8"));
          const problems = problemsOf(answer);
          if (problems.length)
            throw new Error(`${problems.join("; ")}: ${answer.statusCode} ${answer.body.slice(0, 200)}`);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    // Still serving.
    expect((await raw(port, get("/health"))).statusCode).toBe(200);
  }, 120_000);
});
