import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clock } from "../../src/core/clock.js";
import { runRetention } from "../../src/modules/maintenance/retention.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

const BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
const HOUR = 3_600_000;

describe.each(engines())("the retention pass on %s", (engine) => {
  let h: Harness;
  let now = Date.parse("2026-11-22T00:00:00Z");
  const clock: Clock = { now: () => new Date(now) };
  beforeAll(async () => {
    h = await startHarness(engine, { clock });
  });
  afterAll(async () => h.close());

  it("keeps an order's x-request-id for IDEMPOTENCY_TTL_HOURS, then forgets it", async () => {
    expect(h.config.demo.idempotencyTtlHours).toBe(24);
    const u = await h.user(["trade.demo:write"]);
    const requestId = randomUUID();
    const order = () =>
      h.app.inject({
        method: "POST",
        url: BY_AMOUNT,
        headers: { ...u.headers, "x-request-id": requestId },
        payload: { InstrumentID: 1001, IsBuy: true, Leverage: 1, Amount: 100 },
      });
    const first = await order();
    expect(first.statusCode).toBe(200);
    const firstId = first.json().orderForOpen.orderID;

    now += 23 * HOUR;
    await runRetention(h.deps);
    const retry = await order();
    expect(retry.json().orderForOpen.orderID).toBe(firstId);

    now += 2 * HOUR;
    const report = await runRetention(h.deps);
    expect(report.idempotencyKeys).toBeGreaterThanOrEqual(1);
    const later = await order();
    expect(later.statusCode).toBe(200);
    expect(later.json().orderForOpen.orderID).not.toBe(firstId);
  });

  it("deletes expired OAuth sign-in sessions and keeps live ones", async () => {
    const u = await h.user([]);
    const at = (offsetMs: number) => new Date(now + offsetMs).toISOString();
    await h.deps.db.kysely
      .insertInto("oauthSessions")
      .values([
        {
          idHash: `gone-${randomUUID()}`,
          userId: u.user.id,
          csrfToken: "x",
          createdAt: at(-2 * HOUR),
          expiresAt: at(-HOUR),
        },
        {
          idHash: `live-${randomUUID()}`,
          userId: u.user.id,
          csrfToken: "y",
          createdAt: at(-HOUR),
          expiresAt: at(HOUR),
        },
      ])
      .execute();
    const report = await runRetention(h.deps);
    expect(report.sessions).toBe(1);
    const left = await h.deps.db.kysely
      .selectFrom("oauthSessions")
      .select("idHash")
      .where("userId", "=", u.user.id)
      .execute();
    expect(left.map((r) => r.idHash.split("-")[0])).toEqual(["live"]);
  });
});
