import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UserActor } from "../../src/core/actor.js";
import { systemActor } from "../../src/core/actor.js";
import { transact, withActor } from "../../src/modules/context.js";
import { listCopies, startCopy, stopCopy } from "../../src/modules/copy-trading/copies/copies.js";
import { COPY_BATCH } from "../../src/modules/copy-trading/mirrors/follow-open.js";
import { mirrorEngineOf } from "../../src/modules/copy-trading/mirrors/mirror-engine.js";
import { startMirror } from "../../src/modules/copy-trading/mirrors/start-mirror.js";
import { createUser } from "../../src/modules/identity/create-user.js";
import { takeSnapshots } from "../../src/modules/people/history/take-snapshots.js";
import { closePosition } from "../../src/modules/trading/close-position.js";
import { openMarketOrder } from "../../src/modules/trading/open-market-order.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

const BTC = 100000;
/** More than two batches, the last one partial. */
const COPIERS = COPY_BATCH * 2 + 7;

describe.each(engines())("copies in batches on %s", (engine) => {
  let h: Harness;
  let trader: UserActor;
  const mirrors: { mirrorId: number; userId: string; cents: number }[] = [];
  const actorOf = (u: { id: string; gcid: number }): UserActor => ({
    kind: "user",
    userId: u.id,
    gcid: u.gcid,
    via: "key-pair",
    credentialId: "test",
    scopes: ["trade.demo:write"],
    environment: "demo",
  });
  const db = () => h.deps.db.kysely;
  const copiersOf = async (userId: string) =>
    (await db().selectFrom("peopleStats").select(["period", "copiers"]).where("userId", "=", userId).execute()).map(
      (r) => Number(r.copiers),
    );

  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
    const operator = withActor(h.deps, systemActor("test"));
    trader = actorOf(await createUser(operator, { username: `batch-trader-${randomUUID().slice(0, 8)}` }));
    for (let i = 0; i < COPIERS; i++) {
      const copier = actorOf(await createUser(operator, { username: `batch-copier-${randomUUID().slice(0, 12)}` }));
      // Most copy 1,000 USD; every 50th 3 USD (below the minimum once sized).
      const cents = i % 50 === 1 ? 300 : 100_000;
      const mirrorId = await transact(h.deps, (trx) =>
        startMirror(h.deps, trx, copier, {
          parentUserId: trader.userId,
          investmentCents: cents,
          stopLossCents: 0,
          agentPortfolioId: null,
        }),
      );
      if (typeof mirrorId !== "number") throw new Error(String(mirrorId));
      mirrors.push({ mirrorId, userId: copier.userId, cents });
    }
    await mirrorEngineOf(h.deps)!.idle();
  });
  afterAll(async () => h?.close());

  it("opens every copy once at its exact share, records every skip, and closes them all with the trader", async () => {
    // Every 97th copy has no money left at the open (a zero share: skipped, recorded).
    const drained = mirrors.filter((_, i) => i % 97 === 3).map((m) => m.mirrorId);
    await db().updateTable("copyMirrors").set({ availableCashCents: 0 }).where("mirrorId", "in", drained).execute();

    const open = await openMarketOrder(withActor(h.deps, trader), randomUUID(), {
      instrumentId: BTC,
      isBuy: true,
      leverage: 2,
      amount: 10_000,
    });
    await mirrorEngineOf(h.deps)!.idle();
    const parent = await db()
      .selectFrom("demoPositions")
      .selectAll()
      .where("orderId", "=", open.order.orderId)
      .executeTakeFirstOrThrow();
    const claims = await db()
      .selectFrom("copyMirrorOpens")
      .selectAll()
      .where("parentPositionId", "=", parent.positionId)
      .execute();
    expect(claims).toHaveLength(COPIERS);
    const copies = await db()
      .selectFrom("demoPositions")
      .selectAll()
      .where("parentPositionId", "=", parent.positionId)
      .execute();
    const byMirror = new Map(copies.map((c) => [c.mirrorId, c]));
    // The trader's equity at cost: 100,000 USD, nothing moved since (its one position's margin counts).
    const parentEquity = 10_000_000;
    for (const m of mirrors) {
      const claim = claims.find((c) => c.mirrorId === m.mirrorId)!;
      const expected = Math.floor((1_000_000 * (drained.includes(m.mirrorId) ? 0 : m.cents)) / parentEquity);
      if (drained.includes(m.mirrorId)) {
        expect(claim.skipReason).toBe("BelowMinimum");
      } else if (m.cents === 300) {
        expect(claim.skipReason).toBe("BelowMinimum");
        expect(byMirror.has(m.mirrorId)).toBe(false);
      } else {
        const copy = byMirror.get(m.mirrorId)!;
        expect(claim.skipReason).toBeNull();
        expect(claim.positionId).toBe(copy.positionId);
        expect(Number(copy.amountCents)).toBe(expected);
        expect(copy.openRate).toBe(parent.openRate);
        expect(copy.leverage).toBe(2);
        expect(copy.userId).toBe(m.userId);
        const mirror = await db()
          .selectFrom("copyMirrors")
          .select("availableCashCents")
          .where("mirrorId", "=", m.mirrorId)
          .executeTakeFirstOrThrow();
        expect(Number(mirror.availableCashCents) + Number(copy.amountCents)).toBe(m.cents);
      }
    }
    // A second handling (the sweep) opens nothing more.
    await mirrorEngineOf(h.deps)!.sweep();
    expect(
      await db()
        .selectFrom("demoPositions")
        .select("positionId")
        .where("parentPositionId", "=", parent.positionId)
        .execute(),
    ).toHaveLength(copies.length);

    // The trader closes: every copy closes at the trader's rate, its money back in its mirror, each copier told.
    await closePosition(withActor(h.deps, trader), randomUUID(), parent.positionId, { instrumentId: BTC });
    await mirrorEngineOf(h.deps)!.idle();
    const trade = await db()
      .selectFrom("demoTrades")
      .select("closeRate")
      .where("positionId", "=", parent.positionId)
      .executeTakeFirstOrThrow();
    const closes = await db()
      .selectFrom("demoTrades")
      .selectAll()
      .where(
        "positionId",
        "in",
        copies.map((c) => c.positionId),
      )
      .execute();
    expect(closes).toHaveLength(copies.length);
    for (const c of closes) expect(c.closeRate).toBe(trade.closeRate);
    for (const c of copies) {
      const mirror = await db()
        .selectFrom("copyMirrors")
        .selectAll()
        .where("mirrorId", "=", c.mirrorId!)
        .executeTakeFirstOrThrow();
      expect(Number(mirror.availableCashCents) - Number(mirror.closedPnlCents)).toBe(
        Number(mirror.initialInvestmentCents),
      );
    }
    const told = await db()
      .selectFrom("notifications")
      .select("userId")
      .where("notificationType", "=", "PositionClosed")
      .where(
        "userId",
        "in",
        copies.map((c) => c.userId),
      )
      .execute();
    expect(new Set(told.map((t) => t.userId)).size).toBe(copies.length);
  });

  it("keeps people_stats.copiers with the copies started and stopped, before and after the stats are written", async () => {
    const operator = withActor(h.deps, systemActor("test"));
    const leader = actorOf(await createUser(operator, { username: `leader-${randomUUID().slice(0, 8)}` }));
    const a = actorOf(await createUser(operator, { username: `fan-a-${randomUUID().slice(0, 8)}` }));
    const b = actorOf(await createUser(operator, { username: `fan-b-${randomUUID().slice(0, 8)}` }));
    const leaderName = (
      await db().selectFrom("users").select("username").where("id", "=", leader.userId).executeTakeFirstOrThrow()
    ).username;
    // The leader trades (its demo account opens), copied before it has any stats row: the first
    // one written starts with the count.
    await openMarketOrder(withActor(h.deps, leader), randomUUID(), {
      instrumentId: BTC,
      isBuy: true,
      leverage: 1,
      amount: 100,
    });
    const first = await startCopy(withActor(h.deps, a), { username: leaderName, amount: 1000 });
    await startCopy(withActor(h.deps, b), { username: leaderName, amount: 1000 });
    // A second copy of the same leader by the same copier counts once.
    await startCopy(withActor(h.deps, a), { username: leaderName, amount: 500 });
    expect(await copiersOf(leader.userId)).toEqual([]);
    await takeSnapshots(h.deps);
    expect(new Set(await copiersOf(leader.userId))).toEqual(new Set([2]));
    await stopCopy(withActor(h.deps, b), (await listCopies(withActor(h.deps, b)))[0]!.mirrorId);
    expect(new Set(await copiersOf(leader.userId))).toEqual(new Set([1]));
    await stopCopy(withActor(h.deps, a), first.mirrorId);
    expect(new Set(await copiersOf(leader.userId))).toEqual(new Set([1]));
    await takeSnapshots(h.deps);
    expect(new Set(await copiersOf(leader.userId))).toEqual(new Set([1]));
  });
});
