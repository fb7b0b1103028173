import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listInstruments } from "../../src/modules/market/find-instruments.js";
import { type Harness, startHarness } from "../support/harness.js";
import { Client, listening, until } from "./client.js";

const BUFFER_BYTES = 64 * 1024;
const MAX_QUEUED = 20;

/** The client's TCP socket: pausing it makes a client that stops reading. */
const tcp = (c: Client) => (c.ws as unknown as { _socket: Socket })._socket;

/** Backpressure does not depend on the store: one engine is enough. */
describe("a slow consumer of the real-time channel", () => {
  let h: Harness;
  let url: string;
  let topics: string[];
  let ids: number[];

  beforeAll(async () => {
    h = await startHarness("sqlite", {
      env: {
        REALTIME_KEEPALIVE_MS: "0",
        REALTIME_BUFFER_BYTES: String(BUFFER_BYTES),
        REALTIME_MAX_QUEUED_EVENTS: String(MAX_QUEUED),
        MARKET_VOLATILITY: "0.01",
      },
    });
    url = await listening(h.app);
    ids = (await listInstruments(h.deps)).map((i) => i.instrumentId);
    topics = ids.map((id) => `instrument:${id}`);
  });
  afterAll(() => h.close());

  /** Ticks until the socket's buffer is past the mark, so that rates wait (are conflated). */
  const tickUntilConflating = async () => {
    for (let i = 0; i < 20_000 && h.deps.realtime.backlog().waitingRates === 0; i++) await h.deps.market.tick();
    expect(h.deps.realtime.backlog().waitingRates).toBeGreaterThan(0);
  };

  it("conflates rates while the client does not read: memory stays bounded, and it catches up to the latest", async () => {
    const u = await h.user(["trade.demo:read"]);
    const c = await Client.open(url);
    expect((await c.authenticate(u.headers)).success).toBe(true);
    expect((await c.request("Subscribe", { topics, snapshot: true })).success).toBe(true);
    await until("the snapshots", () => c.pushed.length === ids.length);
    tcp(c).pause();
    await tickUntilConflating();
    const startStep = h.deps.market.steps;
    // A thousand more ticks: what waits is at most one rate per instrument and the buffer's mark
    // plus one frame, however many ticks pass.
    let worstBuffered = 0;
    for (let i = 0; i < 1000; i++) {
      await h.deps.market.tick();
      const backlog = h.deps.realtime.backlog();
      expect(backlog.waitingRates).toBeLessThanOrEqual(ids.length);
      worstBuffered = Math.max(worstBuffered, backlog.bufferedBytes);
    }
    expect(worstBuffered).toBeLessThan(BUFFER_BYTES + 256 * 1024);
    expect(c.closed).toBeUndefined();
    const ticks = h.deps.market.steps - startStep;

    tcp(c).resume();
    const last = h.deps.market.steps;
    await until("every instrument's latest rate arrived", () =>
      ids.every((id) => c.of(`instrument:${id}`).some((p) => Number(p.content.PriceRateID) === last)),
    );
    for (const id of ids) {
      const seen = c.of(`instrument:${id}`);
      const steps = seen.map((p) => Number(p.content.PriceRateID));
      // Never reordered, and conflated: far fewer than one message per tick.
      expect(steps).toEqual([...steps].sort((a, b) => a - b));
      expect(new Set(steps).size).toBe(steps.length);
      const state = Object.assign({}, ...seen.map((p) => p.content));
      const quote = h.deps.market.quote(id)!;
      expect([Number(state.Bid), Number(state.Ask), Number(state.LastExecution)]).toEqual([
        quote.bid,
        quote.ask,
        quote.mid,
      ]);
    }
    const received = c.pushed.filter((p) => p.type === "Trading.Instrument.Rate").length;
    expect(received).toBeLessThan((ticks * ids.length) / 2);
    await c.close();
  });

  it("never drops private events silently: past the bound the socket is closed with 1008 and a reason", async () => {
    const u = await h.user(["trade.demo:read", "trade.demo:write"]);
    const c = await Client.open(url);
    expect((await c.authenticate(u.headers)).success).toBe(true);
    expect((await c.request("Subscribe", { topics: [...topics, "private"] })).success).toBe(true);
    tcp(c).pause();
    await tickUntilConflating();
    for (let i = 0; i <= MAX_QUEUED; i++) {
      const opened = await h.app.inject({
        method: "POST",
        url: "/api/v1/trading/execution/demo/market-open-orders/by-amount",
        headers: { ...u.headers, "x-request-id": randomUUID() },
        payload: { InstrumentID: 100000, IsBuy: true, Leverage: 1, Amount: 100 },
      });
      expect(opened.statusCode).toBe(200);
    }
    tcp(c).resume();
    await until("the socket is closed", () => c.closed !== undefined);
    expect(c.closed!.code).toBe(1008);
    expect(c.closed!.reason).toMatch(/^Slow consumer: more than 20 events waiting/);
    // What was sent before the close is whole and in order: the first private events, no gap.
    const orders = c.of("private").map((p) => p.content.OrderID as number);
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
    expect(orders.length).toBeLessThanOrEqual(MAX_QUEUED + 1);
    await until("the hub forgot the socket", () => h.deps.realtime.connectionsOf(u.user.id) === 0);
  });
});
