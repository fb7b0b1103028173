import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../src/core/errors.js";
import { withActor } from "../../src/modules/context.js";
import { RecordedSource } from "../../src/modules/market/price-sources.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import { closePosition } from "../../src/modules/trading/close-position.js";
import { openMarketOrder } from "../../src/modules/trading/open-market-order.js";
import { getPortfolio } from "../../src/modules/trading/read-account.js";
import { tradingRepository } from "../../src/modules/trading/trading.repository.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

const INSTRUMENTS = [1001, 100000, 1] as const; // AAPL (x1,2,5), BTC (x1,2), EURUSD (up to x30)
const LEVERAGES: Record<number, number[]> = { 1001: [1, 2, 5], 100000: [1, 2], 1: [1, 5, 30] };

type Op =
  | { op: "open"; instrument: number; isBuy: boolean; leverage: number; cents: number; sl: boolean }
  | { op: "move"; factors: number[] }
  | { op: "close"; pick: number; fraction: number | null };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc
    .record({
      instrument: fc.constantFrom(...INSTRUMENTS),
      isBuy: fc.boolean(),
      lev: fc.nat(),
      cents: fc.integer({ min: 2_500, max: 3_000_000 }),
      sl: fc.boolean(),
    })
    .map(({ instrument, isBuy, lev, cents, sl }) => {
      const allowed = LEVERAGES[instrument]!;
      return { op: "open" as const, instrument, isBuy, leverage: allowed[lev % allowed.length]!, cents, sl };
    }),
  fc.record({
    op: fc.constant("move" as const),
    factors: fc.array(fc.double({ min: 0.8, max: 1.25, noNaN: true }), { minLength: 3, maxLength: 3 }),
  }),
  fc.record({
    op: fc.constant("close" as const),
    pick: fc.nat(),
    fraction: fc.option(fc.double({ min: 0.05, max: 0.95, noNaN: true }), { nil: null }),
  }),
);

describe.each(engines())("conservation of demo money on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMITS_ENABLED: "false" } });
  });
  afterAll(async () => h.close());

  it("cash + invested − realised P/L equals the starting balance to the cent, whatever happens", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
        const u = await h.user(["trade.demo:write"]);
        const actor = u.actor;
        const ctx = withActor(h.deps, actor);
        await currentQuotes(h.deps, INSTRUMENTS);
        const open: number[] = [];
        for (const op of ops) {
          if (op.op === "open") {
            const q = (await currentQuotes(h.deps, [op.instrument])).get(op.instrument)!;
            try {
              const r = await openMarketOrder(ctx, randomUUID(), {
                instrumentId: op.instrument,
                isBuy: op.isBuy,
                leverage: op.leverage,
                amount: op.cents / 100,
                stopLossRate: op.sl ? (op.isBuy ? q.bid * 0.9 : q.ask * 1.1) : null,
              });
              open.push(r.order.positionId);
            } catch (error) {
              // Running out of cash is a legitimate outcome of a random walk of orders.
              if (!(error instanceof AppError) || error.code !== "ValidationFailed") throw error;
            }
          } else if (op.op === "move") {
            const series: Record<number, number[]> = {};
            INSTRUMENTS.forEach((id, i) => {
              series[id] = [h.deps.market.quote(id)!.mid * op.factors[i]!];
            });
            h.deps.market.useSource(new RecordedSource(series, h.deps.market.steps));
            await h.deps.market.tick();
          } else if (open.length > 0) {
            const positionId = open[op.pick % open.length]!;
            const position = await tradingRepository(h.deps.db.kysely).findPosition(positionId);
            if (position?.status !== "open") {
              open.splice(open.indexOf(positionId), 1);
              continue;
            }
            await closePosition(ctx, randomUUID(), positionId, {
              instrumentId: position.instrumentId,
              unitsToDeduct: op.fraction === null ? null : position.units * op.fraction,
            });
            if (op.fraction === null) open.splice(open.indexOf(positionId), 1);
          }
          const portfolio = await getPortfolio(ctx);
          const account = (await tradingRepository(h.deps.db.kysely).findAccount(actor.userId))!;
          expect(Number.isInteger(account.cashCents)).toBe(true);
          expect(account.cashCents).toBeGreaterThanOrEqual(0);
          expect(account.cashCents + portfolio.investedCents - account.realizedPnlCents).toBe(account.startingCents);
        }
      }),
      { numRuns: engine === "sqlite" ? 40 : 15 },
    );
  });
});
