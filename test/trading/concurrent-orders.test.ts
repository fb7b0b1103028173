import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";

const BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
const AAPL = 1001;
/** 30,000 USD each: three fit the 100,000 USD demo balance, a fourth does not. */
const BIG = { InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 30_000 };
/** Refused by the order's rules (at most 2 decimals), inside the order's transaction. */
const INVALID = { InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 0.001 };
const CALLERS = 12;

/**
 * Many callers' orders at once, all sent before any is answered: on SQLite they are written in
 * shared commits (group commit, decision 0172), on PostgreSQL in concurrent transactions. Either
 * way each order is all or nothing, cash checks are exact, and a replayed x-request-id opens one
 * position.
 */
describe.each(engines())("orders from many callers at once on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
  });
  afterAll(async () => h.close());

  it("passes exactly the orders the cash covers, each whole, replays answered once, refusals leaving nothing", async () => {
    const users: TestUser[] = [];
    for (let i = 0; i < CALLERS; i++) users.push(await h.user(["trade.demo:write"]));
    // Per caller: four distinct orders of 30,000 USD, the first sent twice (the same id and
    // body), and one the rules refuse; all callers' requests interleaved and in flight together.
    const requests = users.flatMap((u, i) => {
      const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      return [
        { caller: i, id: ids[0]!, body: BIG },
        { caller: i, id: randomUUID(), body: INVALID },
        { caller: i, id: ids[1]!, body: BIG },
        { caller: i, id: ids[0]!, body: BIG },
        { caller: i, id: ids[2]!, body: BIG },
        { caller: i, id: ids[3]!, body: BIG },
      ].map((r) => ({ ...r, headers: u.headers }));
    });
    const answers = await Promise.all(
      requests.map(async (r) => {
        const res = await h.app.inject({
          method: "POST",
          url: BY_AMOUNT,
          headers: { ...r.headers, "x-request-id": r.id },
          payload: r.body,
        });
        return { ...r, status: res.statusCode, body: res.json() };
      }),
    );

    for (let i = 0; i < CALLERS; i++) {
      const mine = answers.filter((a) => a.caller === i);
      const invalid = mine.filter((a) => a.id === requests[i * 6 + 1]!.id);
      expect(invalid.map((a) => a.status)).toEqual([422]);
      const big = mine.filter((a) => a.id !== requests[i * 6 + 1]!.id);
      // Each id answers alike every time: one order (the same one) or the same refusal.
      const byId = new Map<string, typeof big>();
      for (const a of big) byId.set(a.id, [...(byId.get(a.id) ?? []), a]);
      expect(byId.size).toBe(4);
      const passed = [...byId.values()].filter((as) => as[0]!.status === 200);
      const refused = [...byId.values()].filter((as) => as[0]!.status !== 200);
      for (const as of byId.values()) {
        expect(new Set(as.map((a) => a.status)).size, JSON.stringify(as.map((a) => a.body))).toBe(1);
        expect(new Set(as.map((a) => JSON.stringify(a.body.orderForOpen?.orderID ?? a.body.errorCode))).size).toBe(1);
      }
      expect(passed).toHaveLength(3);
      expect(refused).toHaveLength(1);
      expect(refused[0]![0]!.status).toBe(422);
      expect(refused[0]![0]!.body.errorMessage).toMatch(/available cash/);

      // The store: three positions, three orders, three request ids, cash exactly what is left.
      const userId = users[i]!.user.id;
      const k = h.deps.db.kysely;
      const positions = await k
        .selectFrom("demoPositions")
        .select(["orderId", "amountCents"])
        .where("userId", "=", userId)
        .execute();
      expect(positions.map((p) => Number(p.amountCents))).toEqual([3_000_000, 3_000_000, 3_000_000]);
      expect(positions.map((p) => Number(p.orderId)).sort()).toEqual(
        passed.map((as) => as[0]!.body.orderForOpen.orderID).sort(),
      );
      const keys = await k.selectFrom("idempotencyKeys").select("requestId").where("userId", "=", userId).execute();
      expect(keys.map((r) => r.requestId).sort()).toEqual(passed.map((as) => as[0]!.id).sort());
      const orders = await k.selectFrom("demoOrders").select("orderId").where("userId", "=", userId).execute();
      expect(orders).toHaveLength(3);
      const account = await k
        .selectFrom("demoAccounts")
        .select("cashCents")
        .where("userId", "=", userId)
        .executeTakeFirstOrThrow();
      expect(Number(account.cashCents)).toBe(10_000_000 - 9_000_000);
    }
  }, 60_000);
});
