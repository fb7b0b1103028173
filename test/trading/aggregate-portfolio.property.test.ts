import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toAggregatePortfolio } from "../../src/modules/trading/portfolio/aggregate-portfolio.view.js";
import {
  type AggregatePortfolio,
  aggregateByInstrument,
  type MirrorAggregate,
} from "../../src/modules/trading/portfolio/read-aggregate-portfolio.js";
import type { PositionValue } from "../../src/modules/trading/read-account.js";
import type { PositionRow } from "../../src/modules/trading/trading.repository.js";

/** A valued position: only the fields the aggregation reads. */
const positionValue = fc
  .record({
    instrumentId: fc.constantFrom(1001, 1002, 100000),
    isBuy: fc.boolean(),
    units: fc.double({ min: 0.0001, max: 1000, noNaN: true }),
    openRate: fc.double({ min: 0.01, max: 100000, noNaN: true }),
    amountCents: fc.integer({ min: 1, max: 100_000_000 }),
    leverage: fc.constantFrom(1, 2, 5, 10),
    closeRate: fc.double({ min: 0.01, max: 100000, noNaN: true }),
    pnl: fc.integer({ min: -100_000_000, max: 100_000_000 }),
    fees: fc.integer({ min: 0, max: 10_000 }),
  })
  .map(
    (p): PositionValue => ({
      position: {
        instrumentId: p.instrumentId,
        isBuy: p.isBuy ? 1 : 0,
        units: p.units,
        openRate: p.openRate,
        amountCents: p.amountCents,
        leverage: p.leverage,
      } as PositionRow,
      quote: undefined,
      stopLossRate: 0,
      closeRate: p.closeRate,
      unrealizedPnlCents: Math.max(p.pnl, -p.amountCents),
      feesCents: p.fees,
      taxesCents: 0,
    }),
  );

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

describe("aggregating positions by instrument", () => {
  it("keeps every cent: margins, P/L and fees of the groups sum to the positions'", () => {
    fc.assert(
      fc.property(fc.array(positionValue, { maxLength: 30 }), (positions) => {
        const groups = aggregateByInstrument(positions);
        expect(groups.map((g) => g.instrumentId)).toEqual(
          [...new Set(positions.map((p) => p.position.instrumentId))].sort((a, b) => a - b),
        );
        expect(sum(groups.map((g) => g.marginCents))).toBe(sum(positions.map((p) => p.position.amountCents)));
        expect(sum(groups.map((g) => g.pnlCents))).toBe(sum(positions.map((p) => p.unrealizedPnlCents)));
        expect(sum(groups.map((g) => g.feesCents))).toBe(sum(positions.map((p) => p.feesCents)));
        for (const g of groups) {
          const own = positions.filter((p) => p.position.instrumentId === g.instrumentId);
          const leverages = own.map((p) => p.position.leverage);
          const rates = own.map((p) => p.position.openRate);
          expect(g.avgLeverage).toBeGreaterThanOrEqual(Math.min(...leverages) - 1e-9);
          expect(g.avgLeverage).toBeLessThanOrEqual(Math.max(...leverages) + 1e-9);
          expect(g.avgOpenRate).toBeGreaterThanOrEqual(Math.min(...rates) * (1 - 1e-9));
          expect(g.avgOpenRate).toBeLessThanOrEqual(Math.max(...rates) * (1 + 1e-9));
          const net = sum(own.map((p) => (p.position.isBuy === 1 ? p.position.units : -p.position.units)));
          expect(g.netUnits).toBeCloseTo(net, 6);
        }
      }),
    );
  });

  it("account totals obey upstream's identities to the cent", () => {
    const mirror = fc.record({
      availableCashCents: fc.integer({ min: 0, max: 10_000_000 }),
      closedPnlCents: fc.integer({ min: -1_000_000, max: 1_000_000 }),
      positions: fc.array(positionValue, { maxLength: 5 }),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.array(positionValue, { maxLength: 10 }),
        fc.array(mirror, { maxLength: 3 }),
        (cashCents, own, copies) => {
          const mirrors = copies.map(
            (m, i): MirrorAggregate => ({
              mirrorId: i + 1,
              availableCashCents: m.availableCashCents,
              depositTotalCents: 0,
              withdrawalTotalCents: 0,
              stopLossCents: 0,
              closedPnlCents: m.closedPnlCents,
              marginCents: sum(m.positions.map((p) => p.position.amountCents)),
              openPnlCents: sum(m.positions.map((p) => p.unrealizedPnlCents)),
              instruments: aggregateByInstrument(m.positions),
            }),
          );
          const a: AggregatePortfolio = {
            cid: 1,
            timestamp: "2026-01-01T00:00:00.000Z",
            cashCents,
            frozenCents: 0,
            manualMarginCents: sum(own.map((p) => p.position.amountCents)),
            manualPnlCents: sum(own.map((p) => p.unrealizedPnlCents)),
            allMirrors: mirrors,
            instruments: aggregateByInstrument(own),
            mirrors,
          };
          const body = toAggregatePortfolio(a);
          const c = (usd: number) => Math.round(usd * 100);
          const t = body.accountTotals;
          expect(c(t.accountTotalValue)).toBe(
            c(t.accountAvailableCash) + c(t.accountTotalUsedMargin) + c(t.accountCurrentPnl),
          );
          // The whole account: cash, own positions at their value, each copy's cash and positions at their value.
          const equity =
            cashCents +
            a.manualMarginCents +
            a.manualPnlCents +
            sum(mirrors.map((m) => m.availableCashCents + m.marginCents + m.openPnlCents));
          expect(c(t.accountTotalValue)).toBe(equity);
          for (const m of body.mirrors) {
            expect(c(m.mirrorTotals.mirrorLiquidationValue)).toBe(
              c(m.mirrorTotals.mirrorActiveMargin) + c(m.mirrorTotals.mirrorPositionsPnl),
            );
          }
        },
      ),
    );
  });
});
