#!/usr/bin/env node
// The baseline of `bench/realtime.mjs`: a bare `ws` broadcast server. It accepts the same sockets
// on /ws, answers every request `{ id, operation }` with `{ id, success: true, operation }` (no
// credential is checked), remembers each socket's `instrument:<id>` topics and, every TICK_MS,
// moves every catalog instrument (a plain random walk from the catalog's seed price and precision),
// serializes each instrument's rate message once per tick, with the fields, string encoding and
// envelope of the app's `Trading.Instrument.Rate` deltas (src/modules/realtime/rates.ts), and sends
// each socket one text frame holding the messages of its instruments. Nothing else: no auth, no
// conflation, no backpressure, no keepalive. Prints `{ "port": N }` once listening.
// FRAMES=bytes (the default) builds each socket's frame as the app does: every message is encoded
// to UTF-8 once per tick and copied into the frame; FRAMES=string joins the message strings into
// one string per socket (as the app did before decision 0159), which ws then encodes per socket.
import { randomUUID } from "node:crypto";
import { WebSocketServer } from "ws";
import { CATALOG } from "../dist/modules/market/catalog.js";

const tickMs = Number(process.env.TICK_MS ?? 100);
const bytes = (process.env.FRAMES ?? "bytes") === "bytes";
const TEXT = { binary: false };
const OPEN = Buffer.from('{"messages":[');
const CLOSE = Buffer.from("]}");
const COMMA = Buffer.from(",");
function frameOf(messages) {
  let size = OPEN.length + CLOSE.length + messages.length - 1;
  for (const m of messages) size += m.length;
  const frame = Buffer.allocUnsafe(size);
  let at = OPEN.copy(frame, 0);
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) at += COMMA.copy(frame, at);
    at += messages[i].copy(frame, at);
  }
  CLOSE.copy(frame, at);
  return frame;
}
const SPREAD_BPS = 4;
const VOLATILITY = 0.0004;
const round = (v, p) => Math.round(v * 10 ** p) / 10 ** p;

const instruments = CATALOG.map((e) => ({ id: e.instrumentId, mid: e.price, precision: e.precision }));
const byId = new Map(instruments.map((i) => [i.id, i]));
/** socket → its subscribed instruments, in catalog order (the order the app's ticks fill a frame). */
const subscriptions = new Map();
let step = 0;

const wss = new WebSocketServer({ port: 0, host: "127.0.0.1", path: "/ws", perMessageDeflate: false });
wss.on("connection", (ws) => {
  const subscribed = new Set();
  subscriptions.set(ws, []);
  ws.on("message", (data, isBinary) => {
    if (isBinary) return;
    const request = JSON.parse(data.toString());
    const operation = request.operation ?? "Authenticate";
    if (operation === "Subscribe") {
      for (const topic of request.data?.topics ?? []) {
        const id = Number(String(topic).slice("instrument:".length));
        if (byId.has(id)) subscribed.add(id);
      }
      subscriptions.set(
        ws,
        instruments.filter((i) => subscribed.has(i.id)).map((i) => i.id),
      );
    }
    ws.send(JSON.stringify({ id: request.id, success: true, operation }));
  });
  ws.on("close", () => subscriptions.delete(ws));
  ws.on("error", () => {});
});

setInterval(() => {
  step += 1;
  const date = new Date().toISOString();
  const serialized = new Map();
  for (const i of instruments) {
    i.mid = round(i.mid * (1 + VOLATILITY * (Math.random() * 2 - 1)), i.precision + 2);
    const half = (i.mid * SPREAD_BPS) / 20_000;
    const bid = String(round(i.mid - half, i.precision));
    const ask = String(
      Math.max(round(i.mid + half, i.precision), round(Number(bid) + 10 ** -i.precision, i.precision)),
    );
    const fields = {
      Ask: ask,
      UnitMarginAsk: ask,
      AskDiscounted: ask,
      UnitMarginAskDiscounted: ask,
      Bid: bid,
      NewUnitMargin: bid,
      UnitMarginBid: bid,
      BidDiscounted: bid,
      UnitMarginBidDiscounted: bid,
      LastExecution: String(i.mid),
      Date: date,
      PriceRateID: String(step),
    };
    const topic = `instrument:${i.id}`;
    const text = JSON.stringify({
      topic,
      content: JSON.stringify(fields),
      id: randomUUID(),
      type: "Trading.Instrument.Rate",
    });
    serialized.set(i.id, bytes ? Buffer.from(text) : text);
  }
  for (const [ws, ids] of subscriptions) {
    if (ids.length === 0) continue;
    const batch = new Array(ids.length);
    for (let k = 0; k < ids.length; k++) batch[k] = serialized.get(ids[k]);
    if (bytes) ws.send(frameOf(batch), TEXT);
    else ws.send(`{"messages":[${batch.join(",")}]}`);
  }
}, tickMs);

wss.on("listening", () => console.log(JSON.stringify({ port: wss.address().port })));
