import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError, createClient } from "../../packages/client/src/index.js";

/** One request as the stub saw it. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
}

type Answer = (req: Seen, res: ServerResponse) => void;

/**
 * A local stub of the API: each request gets the next scripted answer (the last one repeats), so
 * a test decides what the client meets (429 with Retry-After, 503, 401, ...).
 */
class Stub {
  readonly seen: Seen[] = [];
  private script: Answer[] = [];
  private server: Server | undefined;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const seen = {
          method: req.method ?? "",
          url: req.url ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
          at: Date.now(),
        };
        this.seen.push(seen);
        const answer = this.script.length > 1 ? this.script.shift()! : this.script[0]!;
        answer(seen, res);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  answer(...script: Answer[]): void {
    this.script = script;
    this.seen.length = 0;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (req, res) => {
    res.writeHead(status, {
      "content-type": "application/json",
      "x-request-id": String(req.headers["x-request-id"]),
      ...headers,
    });
    res.end(JSON.stringify(body));
  };
const error =
  (status: number, errorCode: string, headers: Record<string, string> = {}): Answer =>
  (req, res) =>
    json(
      status,
      { errorCode, errorMessage: `${errorCode}!`, requestId: req.headers["x-request-id"] },
      headers,
    )(req, res);

const ORDER = {
  orderForOpen: { orderID: 7, positionID: 9 },
  token: "t",
};
const open = (client: ReturnType<typeof createClient>) =>
  client.api.POST("/api/v1/trading/execution/demo/market-open-orders/by-amount", {
    body: { InstrumentID: 100000, IsBuy: true, Leverage: 1, Amount: 10 },
  });

describe("the client's retries, request ids and credentials, against a local stub server", () => {
  const stub = new Stub();
  const keys = { apiKey: "sta_ak_x", userKey: "sta_uk_y" };
  beforeAll(async () => stub.start());
  afterAll(async () => stub.stop());
  beforeEach(() => stub.answer(json(200, {})));

  it("retries a 429 after the Retry-After it names, with the same x-request-id and body", async () => {
    stub.answer(error(429, "TooManyRequests", { "retry-after": "1" }), json(200, ORDER));
    const client = createClient({ baseUrl: stub.url, credentials: keys });
    const { data } = await open(client);
    expect(data?.orderForOpen.orderID).toBe(7);
    expect(stub.seen).toHaveLength(2);
    const [first, second] = stub.seen as [Seen, Seen];
    expect(first.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.headers["x-request-id"]).toBe(first.headers["x-request-id"]);
    expect(second.body).toBe(first.body);
    expect(JSON.parse(second.body)).toMatchObject({ InstrumentID: 100000, Amount: 10 });
    expect(second.headers["x-api-key"]).toBe("sta_ak_x");
    expect(second.headers["x-user-key"]).toBe("sta_uk_y");
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
  });

  it("gives each call its own x-request-id and keeps one the caller sets", async () => {
    const client = createClient({ baseUrl: stub.url, credentials: keys });
    await client.api.GET("/api/v1/me");
    await client.api.GET("/api/v1/me");
    await client.api.GET("/api/v1/me", { params: { header: { "x-request-id": "mine" } } });
    const ids = stub.seen.map((s) => s.headers["x-request-id"]);
    expect(new Set(ids).size).toBe(3);
    expect(ids[2]).toBe("mine");
  });

  it("retries a 503 without Retry-After on a doubling backoff, at most `retries` times, then throws the ApiError", async () => {
    stub.answer(error(503, "ServiceUnavailable"));
    const client = createClient({ baseUrl: stub.url, credentials: keys, retry: { retries: 2, baseDelayMs: 100 } });
    const failed = (await open(client).catch((e: unknown) => e)) as ApiError;
    expect(failed).toBeInstanceOf(ApiError);
    expect(failed).toMatchObject({ status: 503, errorCode: "ServiceUnavailable" });
    expect(failed.requestId).toBe(stub.seen[0]!.headers["x-request-id"]);
    expect(stub.seen).toHaveLength(3);
    expect(new Set(stub.seen.map((s) => s.headers["x-request-id"])).size).toBe(1);
    const gaps = [stub.seen[1]!.at - stub.seen[0]!.at, stub.seen[2]!.at - stub.seen[1]!.at];
    expect(gaps[0]).toBeGreaterThanOrEqual(90);
    expect(gaps[1]).toBeGreaterThanOrEqual(190);
  });

  it("does not wait past its bound: a Retry-After beyond maxDelayMs is handed back at once", async () => {
    stub.answer(error(429, "TooManyRequests", { "retry-after": "120" }));
    const client = createClient({ baseUrl: stub.url, credentials: keys, retry: { maxDelayMs: 5_000 } });
    const started = Date.now();
    const failed = (await client.api.GET("/api/v1/me").catch((e: unknown) => e)) as ApiError;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(failed).toMatchObject({ status: 429, errorCode: "TooManyRequests", retryAfter: 120 });
    expect(stub.seen).toHaveLength(1);
  });

  it("reads Retry-After given as an HTTP date", async () => {
    const at = new Date(Date.now() + 1_500).toUTCString();
    stub.answer(error(503, "ServiceUnavailable", { "retry-after": at }), json(200, { username: "u" }));
    const client = createClient({ baseUrl: stub.url, credentials: keys });
    await client.api.GET("/api/v1/me");
    expect(stub.seen).toHaveLength(2);
    expect(stub.seen[1]!.at - stub.seen[0]!.at).toBeGreaterThanOrEqual(450);
  });

  it("does not retry other errors, and carries their details", async () => {
    stub.answer(
      json(422, {
        errorCode: "ValidationFailed",
        errorMessage: "Amount must be positive",
        requestId: "r-1",
        details: [{ field: "body/Amount", message: "Amount must be positive" }],
      }),
    );
    const client = createClient({ baseUrl: stub.url, credentials: keys });
    const failed = (await open(client).catch((e: unknown) => e)) as ApiError;
    expect(failed).toMatchObject({
      status: 422,
      errorCode: "ValidationFailed",
      requestId: "r-1",
      details: [{ field: "body/Amount", message: "Amount must be positive" }],
    });
    expect(failed.message).toContain("Amount must be positive");
    expect(stub.seen).toHaveLength(1);
  });

  it("refreshes a bearer token after a 401 once, concurrent calls sharing the one refresh", async () => {
    let refreshes = 0;
    const tokenSeen: Seen[] = [];
    stub.answer((req, res) => {
      if (req.url === "/oauth/token") {
        refreshes += 1;
        tokenSeen.push(req);
        json(200, { access_token: "new", token_type: "Bearer", expires_in: 900, refresh_token: `rt${refreshes + 1}` })(
          req,
          res,
        );
        return;
      }
      if (req.headers.authorization === "Bearer new") json(200, { username: "u" })(req, res);
      else error(401, "Unauthorized")(req, res);
    });
    const handed: string[] = [];
    const client = createClient({
      baseUrl: stub.url,
      credentials: {
        accessToken: "old",
        refreshToken: "rt1",
        clientId: "sta_client_1",
        onRefresh: (t) => {
          handed.push(t.refresh_token!);
        },
      },
    });
    const results = await Promise.all([client.api.GET("/api/v1/me"), client.api.GET("/api/v1/me")]);
    expect(results.map((r) => r.data?.username)).toEqual(["u", "u"]);
    expect(refreshes).toBe(1);
    expect(handed).toEqual(["rt2"]);
    expect(Object.fromEntries(new URLSearchParams(tokenSeen[0]!.body))).toEqual({
      grant_type: "refresh_token",
      refresh_token: "rt1",
      client_id: "sta_client_1",
    });
    // Each call kept its own id across its retry after the refresh.
    const calls = stub.seen.filter((s) => s.url === "/api/v1/me");
    const ids = calls.map((s) => s.headers["x-request-id"]);
    expect(new Set(ids).size).toBe(2);
  });

  it("a refused refresh surfaces as the token endpoint's error", async () => {
    stub.answer((req, res) => {
      if (req.url === "/oauth/token") {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "invalid_grant", error_description: "The refresh token has expired" }));
      } else error(401, "Unauthorized")(req, res);
    });
    const client = createClient({
      baseUrl: stub.url,
      credentials: { accessToken: "old", refreshToken: "rt", clientId: "c" },
    });
    await expect(client.api.GET("/api/v1/me")).rejects.toMatchObject({
      status: 400,
      errorCode: "invalid_grant",
      message: expect.stringContaining("The refresh token has expired"),
    });
  });

  it("follows paging.next links through the same transport until one is empty", async () => {
    stub.answer((req, res) => {
      const offset = Number(new URL(req.url, stub.url).searchParams.get("offset") ?? 0);
      const next = offset < 4 ? `/api/v1/feeds/for-you?offset=${offset + 2}&take=2` : "";
      json(200, {
        discussions: [{ id: `p${offset}` }, { id: `p${offset + 1}` }],
        paging: { next, offSet: offset, take: 2 },
      })(req, res);
    });
    const client = createClient({ baseUrl: stub.url, credentials: keys });
    const ids: string[] = [];
    for await (const page of client.pages("/api/v1/feeds/for-you", { params: { query: { take: 2 } } })) {
      ids.push(...page.discussions.map((d) => d.id));
    }
    expect(ids).toEqual(["p0", "p1", "p2", "p3", "p4", "p5"]);
    expect(stub.seen.map((s) => s.url)).toEqual([
      "/api/v1/feeds/for-you?take=2",
      "/api/v1/feeds/for-you?offset=2&take=2",
      "/api/v1/feeds/for-you?offset=4&take=2",
    ]);
    expect(stub.seen.every((s) => s.headers["x-api-key"] === "sta_ak_x")).toBe(true);
  });
});
