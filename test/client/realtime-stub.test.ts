import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { RealtimeClient, type RealtimeEvents } from "../../packages/client/src/index.js";

/**
 * A local stub of the channel: it answers every request with success (Authenticate refused when
 * told to), records the requests per socket, and closes sockets with the code a test asks for.
 */
describe("the real-time client's reconnect policy, against a local stub channel", () => {
  let server: WebSocketServer;
  let url: string;
  let sockets: WebSocket[];
  let requests: { socket: number; operation: string; data: Record<string, unknown> }[];
  let refuseAuthenticate: string | undefined;

  beforeEach(async () => {
    sockets = [];
    requests = [];
    refuseAuthenticate = undefined;
    server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    server.on("connection", (ws) => {
      const n = sockets.push(ws) - 1;
      ws.send(Buffer.from([0])); // the keepalive: ignored
      ws.on("message", (raw) => {
        const { id, operation, data } = JSON.parse(raw.toString());
        requests.push({ socket: n, operation, data });
        if (operation === "Authenticate" && refuseAuthenticate) {
          ws.send(JSON.stringify({ id, success: false, operation, errorCode: refuseAuthenticate, errorMessage: "no" }));
          return;
        }
        ws.send(JSON.stringify({ id, success: true, operation }));
      });
    });
  });
  afterEach(async () => {
    for (const ws of sockets) ws.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const client = () =>
    new RealtimeClient({
      url,
      credentials: { apiKey: "a", userKey: "u" },
      WebSocket,
      reconnect: { initialDelayMs: 20, maxDelayMs: 100 },
    });

  it("after a dropped socket, authenticates and subscribes again to every topic, with a snapshot", async () => {
    const live = client();
    try {
      await live.connect();
      await live.subscribe(["instrument:1", "private"]);
      await live.subscribe(["instrument:2"], { snapshot: true });
      await live.unsubscribe(["instrument:2"]);
      const reconnected = new Promise<RealtimeEvents["connected"]>((resolve) => live.on("connected", resolve));
      sockets[0]!.close(1011, "restart");
      expect(await reconnected).toEqual({ reconnect: true });
      const again = requests.filter((r) => r.socket === 1);
      expect(again.map((r) => r.operation)).toEqual(["Authenticate", "Subscribe"]);
      expect(again[0]!.data).toEqual({ apiKey: "a", userKey: "u" });
      expect(again[1]!.data).toEqual({ topics: ["instrument:1", "private"], snapshot: true });
    } finally {
      live.close();
    }
  });

  it("does not reconnect after 1008 (policy) or after close()", async () => {
    const live = client();
    const dropped: RealtimeEvents["disconnected"][] = [];
    live.on("disconnected", (e) => dropped.push(e));
    await live.connect();
    sockets[0]!.close(1008, "Slow consumer");
    await new Promise((r) => setTimeout(r, 300));
    expect(dropped).toEqual([{ code: 1008, reason: "Slow consumer", retryInMs: undefined }]);
    expect(sockets).toHaveLength(1);
    live.close();
  });

  it("keeps retrying a refused Authenticate with growing waits, within the bound", async () => {
    const live = client();
    const waits: number[] = [];
    live.on("disconnected", (e) => waits.push(e.retryInMs!));
    try {
      await live.connect();
      refuseAuthenticate = "UnhandledException";
      sockets[0]!.close(1011, "restart");
      for (let i = 0; i < 500 && waits.length < 4; i++) await new Promise((r) => setTimeout(r, 10));
      expect(waits.slice(0, 4)).toEqual([20, 40, 80, 100]);
      refuseAuthenticate = undefined;
      await new Promise<void>((resolve) => live.on("connected", () => resolve()));
    } finally {
      live.close();
    }
  });

  it("a refused first Authenticate rejects connect() with the reply's errorCode", async () => {
    refuseAuthenticate = "InvalidKey";
    const live = client();
    await expect(live.connect()).rejects.toMatchObject({ name: "RealtimeError", errorCode: "InvalidKey" });
    live.close();
  });
});
