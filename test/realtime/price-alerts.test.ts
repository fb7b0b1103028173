import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemActor } from "../../src/core/actor.js";
import { withActor } from "../../src/modules/context.js";
import { createKeyPair } from "../../src/modules/identity/key-pairs.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import { engines, type Harness, rid, startHarness } from "../support/harness.js";
import { Client, listening, sleep } from "./client.js";

const AAPL = 1001;

describe.each(engines())("a price alert firing on the private topic on %s", (engine) => {
  let h: Harness;
  let url: string;
  const open: Client[] = [];

  beforeAll(async () => {
    h = await startHarness(engine, { env: { MARKET_TICK_MS: "0" } });
    url = await listening(h.app);
  });
  afterAll(async () => {
    for (const c of open) await c.close().catch(() => {});
    await h.close();
  });

  it("pushes PriceAlerts.Alert.Triggered to the owner's private sockets that may read alerts, once", async () => {
    const u = await h.user(["trade.demo:read", "price-alerts:read", "price-alerts:write"]);
    const listener = await Client.open(url);
    open.push(listener);
    expect((await listener.authenticate(u.headers)).success).toBe(true);
    expect((await listener.request("Subscribe", { topics: ["private"] })).success).toBe(true);
    // The same user through a key pair that cannot read alerts hears nothing of them.
    const tradingOnly = await createKeyPair(withActor(h.deps, systemActor("test")), {
      user: u.user.id,
      scopes: ["trade.demo:read"],
    });
    const deaf = await Client.open(url);
    open.push(deaf);
    expect(
      (await deaf.request("Authenticate", { apiKey: tradingOnly.apiKey, userKey: tradingOnly.userKey })).success,
    ).toBe(true);
    expect((await deaf.request("Subscribe", { topics: ["private"] })).success).toBe(true);

    const bid = (await currentQuotes(h.deps, [AAPL])).get(AAPL)!.bid;
    const target = Math.round(bid * 1.05 * 100) / 100;
    const created = await h.app.inject({
      method: "POST",
      url: "/api/v1/price-alerts",
      headers: { ...u.headers, "x-request-id": rid() },
      payload: { symbol: "AAPL", targetPrice: target },
    });
    expect(created.statusCode, created.body).toBe(201);
    const alertId = created.json().data.alertId;

    h.deps.market.useSource(new RecordedSource({ [AAPL]: [bid * 1.1, bid * 1.2] }, h.deps.market.steps));
    await h.deps.market.tick();
    await h.deps.market.tick();
    const pushed = await listener.waitFor("the alert's event", (p) => p.type === "PriceAlerts.Alert.Triggered");
    expect(pushed.topic).toBe("private");
    expect(pushed.content).toMatchObject({
      alertId,
      instrumentId: AAPL,
      symbol: "AAPL",
      targetPrice: target,
      direction: "above",
    });
    expect(pushed.content.triggeredPrice as number).toBeGreaterThanOrEqual(target);
    await sleep(100);
    expect(listener.pushed.filter((p) => p.type === "PriceAlerts.Alert.Triggered")).toHaveLength(1);
    expect(deaf.pushed.filter((p) => p.type === "PriceAlerts.Alert.Triggered")).toEqual([]);
  });
});
