// @ts-check
// A trading bot: watch Bitcoin, open a long with a stop-loss, wait for its event, close it.
// API_KEY=sta_ak_… USER_KEY=sta_uk_… node packages/client/examples/trading-bot.mjs
import { createClient, ok, RealtimeClient } from "@social-trading-api/client";
import WebSocket from "ws";

const { BASE_URL = "http://127.0.0.1:8080", API_KEY = "", USER_KEY = "" } = process.env;
const credentials = { apiKey: API_KEY, userKey: USER_KEY };
const BTC = 100000;
const client = createClient({ baseUrl: BASE_URL, credentials });
const live = new RealtimeClient({ url: `${BASE_URL.replace(/^http/, "ws")}/ws`, credentials, WebSocket });

await live.connect();
const price = live.waitFor("rate", (r) => r.instrumentId === BTC);
await live.subscribe([`instrument:${BTC}`, "private"], { snapshot: true });
const bid = Number((await price).rate.Bid);
console.log(`BTC bid ${bid}`);

const { orderForOpen } = await ok(
  client.api.POST("/api/v1/trading/execution/demo/market-open-orders/by-amount", {
    body: { InstrumentID: BTC, IsBuy: true, Leverage: 1, Amount: 100, StopLossRate: Math.floor(bid * 0.98) },
  }),
);
const opened = await live.waitFor("orderForOpen", (e) => e.OrderID === orderForOpen.orderID);
console.log(`opened position ${opened.PositionID} at ${opened.Rate}, stop-loss ${opened.StopLossRate}`);

await client.api.POST("/api/v1/trading/execution/demo/market-close-orders/positions/{positionId}", {
  params: { path: { positionId: opened.PositionID } },
  body: { InstrumentID: BTC },
});
const closed = await live.waitFor("orderForClose", (e) => e.PositionID === opened.PositionID);
console.log(`closed at ${closed.EndRate}: net profit ${closed.NetProfit} USD (${closed.CloseReasonName})`);
live.close();
