import type { Socket } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Quote } from "../../src/core/market.js";
import { listInstruments } from "../../src/modules/market/find-instruments.js";
import { type Harness, startHarness } from "../support/harness.js";
import { Client, listening, until } from "./client.js";

const BTC = 100000;
const tcp = (c: Client) => (c.ws as unknown as { _socket: Socket })._socket;

/**
 * Whatever the schedule of ticks and of a client that stops and resumes reading, the rates one
 * subscriber sees of an instrument are the engine's sequence for it: some steps skipped (merged
 * into a later one), none reordered, each message's accumulated state equal to the engine's quote
 * at that step, and the last one the engine's last.
 */
describe("the rates a subscriber sees (property)", () => {
  let h: Harness;
  let c: Client;
  const engineQuotes = new Map<number, Quote>();
  let ticked = 0;

  beforeAll(async () => {
    h = await startHarness("sqlite", {
      env: { REALTIME_KEEPALIVE_MS: "0", REALTIME_BUFFER_BYTES: "1024", MARKET_VOLATILITY: "0.01" },
    });
    const url = await listening(h.app);
    h.deps.market.onTick((quotes) => {
      for (const q of quotes) if (q.instrumentId === BTC) engineQuotes.set(q.priceRateId, q);
    });
    const u = await h.user(["trade.demo:read"]);
    c = await Client.open(url);
    await c.authenticate(u.headers);
    // Every instrument: enough bytes per tick to fill the socket's buffers while paused.
    const topics = (await listInstruments(h.deps)).map((i) => `instrument:${i.instrumentId}`);
    expect((await c.request("Subscribe", { topics, snapshot: true })).success).toBe(true);
  });
  afterAll(async () => {
    await c.close();
    await h.close();
  });

  it("is the engine's sequence, possibly conflated, never reordered", async () => {
    const schedule = fc.array(fc.record({ ticks: fc.integer({ min: 1, max: 120 }), paused: fc.boolean() }), {
      minLength: 1,
      maxLength: 6,
    });
    await fc.assert(
      fc.asyncProperty(schedule, async (steps) => {
        for (const { ticks, paused } of steps) {
          if (paused) tcp(c).pause();
          else tcp(c).resume();
          for (let i = 0; i < ticks; i++) await h.deps.market.tick();
          ticked += ticks;
        }
        tcp(c).resume();
        const last = h.deps.market.steps;
        await until("the last step arrived", () =>
          c.of(`instrument:${BTC}`).some((p) => Number(p.content.PriceRateID) === last),
        );
        let state: Record<string, unknown> = {};
        let previous = -1;
        for (const p of c.of(`instrument:${BTC}`)) {
          state = { ...state, ...p.content };
          const step = Number(p.content.PriceRateID);
          if (step <= previous) return false;
          previous = step;
          const quote = engineQuotes.get(step);
          // The snapshot may carry the quote from before the first recorded tick.
          if (!quote) {
            if (p.type !== "Snapshot") return false;
            continue;
          }
          if (Number(state.Bid) !== quote.bid || Number(state.Ask) !== quote.ask) return false;
          if (Number(state.LastExecution) !== quote.mid || state.Date !== quote.date) return false;
        }
        return previous === last;
      }),
      { numRuns: 20 },
    );
    // The schedules did make the server conflate: fewer messages than ticks. A random schedule may
    // pause too little to fill the socket's buffers, and so may any fixed number of ticks: the
    // kernel's buffers on loopback grow with load (3,203 messages for 3,202 ticks after 120 paused
    // ones, in a loaded run). So the paused run lasts until the server holds rates back (its
    // backlog), then two ticks more merge into them.
    tcp(c).pause();
    let held = -1;
    for (let i = 0; i < 20_000 && held < 2; i++) {
      await h.deps.market.tick();
      ticked += 1;
      if (held >= 0 || h.deps.realtime.backlog().waitingRates > 0) held += 1;
    }
    expect(held, "the server never held a rate back while the client did not read").toBe(2);
    tcp(c).resume();
    const last = h.deps.market.steps;
    await until("the last step arrived", () =>
      c.of(`instrument:${BTC}`).some((p) => Number(p.content.PriceRateID) === last),
    );
    const seen = c.of(`instrument:${BTC}`).length;
    expect(seen).toBeLessThan(ticked);
  });
});
