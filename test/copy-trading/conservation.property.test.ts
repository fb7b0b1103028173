import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UserActor } from "../../src/core/actor.js";
import { AppError } from "../../src/core/errors.js";
import { withActor } from "../../src/modules/context.js";
import { createAgentPortfolio } from "../../src/modules/copy-trading/agent-portfolios/create-agent-portfolio.js";
import { deleteAgentPortfolio } from "../../src/modules/copy-trading/agent-portfolios/delete-agent-portfolio.js";
import { mirrorEngineOf } from "../../src/modules/copy-trading/mirrors/mirror-engine.js";
import { mirrorsRepository } from "../../src/modules/copy-trading/mirrors/mirrors.repository.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import { closePosition } from "../../src/modules/trading/close-position.js";
import { openMarketOrder } from "../../src/modules/trading/open-market-order.js";
import { tradingRepository } from "../../src/modules/trading/trading.repository.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

const INSTRUMENTS = [1001, 100000] as const;

type Op =
  | { op: "open"; who: "agent" | "copier"; instrument: number; isBuy: boolean; cents: number }
  | { op: "move"; factors: number[] }
  | { op: "close"; who: "agent" | "copier"; pick: number; fraction: number | null };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant("open" as const),
    who: fc.constantFrom("agent" as const, "agent" as const, "copier" as const),
    instrument: fc.constantFrom(...INSTRUMENTS),
    isBuy: fc.boolean(),
    cents: fc.integer({ min: 2_500, max: 400_000 }),
  }),
  fc.record({
    op: fc.constant("move" as const),
    factors: fc.array(fc.double({ min: 0.85, max: 1.2, noNaN: true }), { minLength: 2, maxLength: 2 }),
  }),
  fc.record({
    op: fc.constant("close" as const),
    who: fc.constantFrom("agent" as const, "agent" as const, "copier" as const),
    pick: fc.nat(),
    fraction: fc.option(fc.double({ min: 0.1, max: 0.9, noNaN: true }), { nil: null }),
  }),
);

describe.each(engines())("copy money is exact and conserved on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
  });
  afterAll(async () => h?.close());

  it("every copy and the copier's account reconcile to the cent after any sequence, and a stop returns everything", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 200_00, max: 20_000_00 }),
        async (ops, investmentCents) => {
          const copier = await h.user(["agent-portfolio:write", "trade.demo:write"]);
          const copierCtx = withActor(h.deps, copier.actor);
          const created = await createAgentPortfolio(
            copierCtx,
            {
              investmentAmountInUsd: investmentCents / 100,
              agentPortfolioName: `Prop${String(++run).padStart(4, "0")}`,
              userTokenName: "t",
              scopeNames: ["trade.demo:write"],
            },
            2,
          );
          const agent: UserActor = {
            kind: "user",
            userId: created.portfolio.agentUserId,
            gcid: created.gcid,
            via: "key-pair",
            credentialId: created.token!.row.id,
            scopes: ["trade.demo:write"],
            environment: "demo",
          };
          const ctxOf = (who: "agent" | "copier") => (who === "agent" ? withActor(h.deps, agent) : copierCtx);
          const trading = tradingRepository(h.deps.db.kysely);
          const mirrors = mirrorsRepository(h.deps.db.kysely);
          const mirrorId = created.portfolio.mirrorId;

          const check = async () => {
            await mirrorEngineOf(h.deps)!.idle();
            const m = (await mirrors.findMirror(mirrorId))!;
            const copies = await mirrors.openPositionsOfMirror(mirrorId);
            const copyMargin = copies.reduce((s, p) => s + p.amountCents, 0);
            expect(Number.isInteger(m.availableCashCents)).toBe(true);
            expect(m.availableCashCents).toBeGreaterThanOrEqual(0);
            // The copy: its cash and margin, less what it realised, is what was put in.
            expect(m.availableCashCents + copyMargin - m.closedPnlCents).toBe(
              m.initialInvestmentCents + m.depositCents - m.withdrawalCents,
            );
            // The copier's account as a whole: own and copied margin, own and copy cash.
            const account = (await trading.findAccount(copier.user.id))!;
            const all = await trading.openPositionsOf(copier.user.id);
            const invested = all.reduce((s, p) => s + p.amountCents, 0);
            expect(
              account.cashCents + invested + m.availableCashCents - account.realizedPnlCents - m.closedPnlCents,
            ).toBe(account.startingCents);
            // Every open copy mirrors an open parent, at its open rate, in proportion to its units.
            for (const c of copies) {
              const parent = (await trading.findPosition(c.parentPositionId!))!;
              expect(parent.status).toBe("open");
              expect(c.openRate).toBe(parent.openRate);
              expect(c.units / c.initialUnits).toBeCloseTo(parent.units / parent.initialUnits, 9);
            }
          };

          await currentQuotes(h.deps, INSTRUMENTS);
          for (const op of ops) {
            if (op.op === "open") {
              try {
                await openMarketOrder(ctxOf(op.who), randomUUID(), {
                  instrumentId: op.instrument,
                  isBuy: op.isBuy,
                  leverage: 1,
                  amount: op.cents / 100,
                });
              } catch (error) {
                if (!(error instanceof AppError) || error.code !== "ValidationFailed") throw error;
              }
            } else if (op.op === "move") {
              const series: Record<number, number[]> = {};
              INSTRUMENTS.forEach((id, i) => {
                series[id] = [h.deps.market.quote(id)!.mid * op.factors[i]!];
              });
              h.deps.market.useSource(new RecordedSource(series, h.deps.market.steps));
              await h.deps.market.tick();
            } else {
              const owner = op.who === "agent" ? agent.userId : copier.user.id;
              const own = (await trading.openPositionsOf(owner)).filter((p) => p.mirrorId == null);
              const position = own[op.pick % Math.max(1, own.length)];
              if (position) {
                await closePosition(ctxOf(op.who), randomUUID(), position.positionId, {
                  instrumentId: position.instrumentId,
                  unitsToDeduct: op.fraction === null ? null : position.units * op.fraction,
                });
              }
            }
            await check();
          }

          // The stop: every copy closed at market, the copy's money and P/L back in the account.
          await deleteAgentPortfolio(copierCtx, created.portfolio.id);
          const m = (await mirrors.findMirror(mirrorId))!;
          expect(m.status).toBe("stopped");
          expect(m.availableCashCents).toBe(0);
          expect(await mirrors.openPositionsOfMirror(mirrorId)).toEqual([]);
          const account = (await trading.findAccount(copier.user.id))!;
          const own = await trading.openPositionsOf(copier.user.id);
          expect(account.cashCents + own.reduce((s, p) => s + p.amountCents, 0) - account.realizedPnlCents).toBe(
            account.startingCents,
          );
        },
      ),
      { numRuns: engine === "sqlite" ? 25 : 8 },
    );
  });
});
