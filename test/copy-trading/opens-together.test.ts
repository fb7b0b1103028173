import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UserActor } from "../../src/core/actor.js";
import { systemActor } from "../../src/core/actor.js";
import { transact, withActor } from "../../src/modules/context.js";
import { mirrorEngineOf } from "../../src/modules/copy-trading/mirrors/mirror-engine.js";
import { startMirror } from "../../src/modules/copy-trading/mirrors/start-mirror.js";
import { createUser } from "../../src/modules/identity/create-user.js";
import { closePosition } from "../../src/modules/trading/close-position.js";
import { openMarketOrder } from "../../src/modules/trading/open-market-order.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

const BTC = 100000;

/**
 * The copy engine checks the opens queued together with one statement (decision 0183): many
 * traders' orders at once, some copied and some not, some closed the moment they open. Every
 * copied open still open is copied exactly once, a closed one leaves no copy open, and nothing of
 * the traders nobody copies is copied.
 */
describe.each(engines())("opens queued together on %s", (engine) => {
  let h: Harness;
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
  let copied: UserActor[];
  let alone: UserActor[];

  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
    const operator = withActor(h.deps, systemActor("test"));
    const user = async (name: string) =>
      actorOf(await createUser(operator, { username: `${name}-${randomUUID().slice(0, 8)}` }));
    copied = [await user("copied-a"), await user("copied-b")];
    alone = [await user("alone-a"), await user("alone-b")];
    const copier = await user("copier");
    for (const trader of copied) {
      const mirrorId = await transact(h.deps, (trx) =>
        startMirror(h.deps, trx, copier, {
          parentUserId: trader.userId,
          investmentCents: 1_000_000,
          stopLossCents: 0,
          agentPortfolioId: null,
        }),
      );
      if (typeof mirrorId !== "number") throw new Error(String(mirrorId));
    }
    await mirrorEngineOf(h.deps)!.idle();
  });
  afterAll(async () => h?.close());

  it("copies each copied open once, leaves no copy of a closed one open, and copies nothing of the others", async () => {
    const traders = [...copied, ...alone];
    // Every trader's orders in flight together; every third is closed as soon as it is answered.
    const results = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const trader = traders[i % traders.length]!;
        const ctx = withActor(h.deps, trader);
        const open = await openMarketOrder(ctx, randomUUID(), {
          instrumentId: BTC,
          isBuy: true,
          leverage: 1,
          amount: 500,
        });
        const closed = i % 3 === 0;
        if (closed) await closePosition(ctx, randomUUID(), open.order.positionId, { instrumentId: BTC });
        return { positionId: open.order.positionId, isCopied: copied.includes(trader), closed };
      }),
    );
    await mirrorEngineOf(h.deps)!.idle();

    for (const r of results) {
      const claims = await db()
        .selectFrom("copyMirrorOpens")
        .select(["positionId", "skipReason"])
        .where("parentPositionId", "=", r.positionId)
        .execute();
      const copies = await db()
        .selectFrom("demoPositions")
        .select(["positionId", "status"])
        .where("parentPositionId", "=", r.positionId)
        .execute();
      if (!r.isCopied) {
        expect(claims).toEqual([]);
        expect(copies).toEqual([]);
        continue;
      }
      if (r.closed) {
        // Closed before the engine came to it: copied and closed with it, or (the parent already
        // closed when its open was followed) not copied at all; never a copy left open.
        expect(claims.length).toBeLessThanOrEqual(1);
        expect(copies.filter((c) => c.status !== "closed")).toEqual([]);
        continue;
      }
      // Exactly one copy, claimed once, open with its parent.
      expect(claims).toHaveLength(1);
      expect(claims[0]!.skipReason).toBeNull();
      expect(copies).toHaveLength(1);
      expect(claims[0]!.positionId).toBe(copies[0]!.positionId);
      expect(copies[0]!.status).toBe("open");
    }
  });
});
