import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../support/harness.js";
import { Client, listening } from "./client.js";

/** REALTIME_PORT: the channel on a port of its own as well (the store plays no part: one engine). */
describe("the real-time channel on REALTIME_PORT", () => {
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
});
