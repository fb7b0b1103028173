import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../support/harness.js";
import { Client, listening } from "./client.js";

/** The upgrade on the API's server and on REALTIME_PORT, and a fault under an operation (one engine: the store plays no part). */
describe("the real-time channel's HTTP side: REALTIME_PORT, other upgrades, a failing store", () => {
  let h: Harness;
  let apiUrl: string;

  beforeAll(async () => {
    h = await startHarness("sqlite", { env: { REALTIME_PORT: "0", REALTIME_KEEPALIVE_MS: "0" } });
    apiUrl = await listening(h.app);
  });
  afterAll(() => h.close());

  it("serves /ws on its own port and on the API's; its other requests are 426", async () => {
    const port = (h.app.realtimeAddress() as AddressInfo).port;
    expect(port).toBeGreaterThan(0);
    const u = await h.user(["trade.demo:read"]);
    for (const url of [`ws://127.0.0.1:${port}/ws`, apiUrl]) {
      const c = await Client.open(url);
      expect((await c.authenticate(u.headers)).success).toBe(true);
      await c.close();
    }
    const plain = await fetch(`http://127.0.0.1:${port}/api/v1/me`);
    expect(plain.status).toBe(426);
    await expect(Client.open(`ws://127.0.0.1:${port}/other`)).rejects.toThrow("HTTP 404");
  });

  it("serves any other request that asks for an upgrade as the HTTP request it is (curl --http2 sends Upgrade: h2c)", async () => {
    const port = (h.app.server.address() as AddressInfo).port;
    const ask = (method: string, path: string, upgrade: string, body?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: "127.0.0.1",
            port,
            method,
            path,
            headers: {
              connection: "Upgrade, HTTP2-Settings",
              upgrade,
              "http2-settings": "AAMAAABkAARAAAAAAAIAAAAA",
              ...(body
                ? {
                    "content-type": "application/x-www-form-urlencoded",
                    "content-length": String(Buffer.byteLength(body)),
                  }
                : {}),
            },
          },
          (res) => {
            let text = "";
            res.on("data", (c) => {
              text += c;
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.on("upgrade", (res) => resolve({ status: res.statusCode ?? 0, body: "" }));
        req.on("error", reject);
        req.end(body);
      });
    const health = await ask("GET", "/health", "h2c");
    expect(health.status).toBe(200);
    const unknown = await ask("GET", "/api/v1/nothing-here", "websocket");
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toHaveProperty("errorCode");
    const me = await ask("GET", "/api/v1/me", "h2c");
    expect(me.status).toBe(401);
    // A body comes along: it is read as usual, the answer the same as without the Upgrade header.
    const form = "grant_type=password&username=x";
    const token = await ask("POST", "/oauth/token", "h2c", form);
    const plain = await h.app.inject({
      method: "POST",
      url: "/oauth/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: form,
    });
    expect([token.status, JSON.parse(token.body)]).toEqual([plain.statusCode, plain.json()]);
  });

  // Last: it breaks this harness's store on purpose.
  it("answers UnhandledException when the store fails under an operation, and keeps the socket", async () => {
    const u = await h.user(["trade.demo:read"]);
    const c = await Client.open(apiUrl);
    expect((await c.authenticate(u.headers)).success).toBe(true);
    await sql`drop table instruments`.execute(h.deps.db.kysely);
    const failed = await c.request("Subscribe", { topics: ["instrument:18"] });
    expect(failed).toMatchObject({
      success: false,
      operation: "Subscribe",
      errorCode: "UnhandledException",
      errorMessage: "Global Error",
    });
    expect((await c.request("Unsubscribe", { topics: ["private"] })).success).toBe(true);
    await c.close();
  });
});
