import type { Ctx } from "../../context.js";
import { dayOf, downsample } from "../history/returns.js";
import { rangeOf } from "../history/series.js";
import type { SnapshotHolding } from "../history/take-snapshots.js";
import { peopleRepository, type SnapshotRow } from "../people.repository.js";
import type { AssetsHistory, ExposureHistory, HistoryQuery } from "../people.schemas.js";
import { readableTarget, type Target } from "../privacy/privacy.js";

const ratio = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1e8) / 1e8 : 0);
const holdingsOf = (s: SnapshotRow) => JSON.parse(s.holdings) as SnapshotHolding[];

async function history(ctx: Ctx, username: string, query: HistoryQuery) {
  const range = rangeOf(query, dayOf(ctx.clock.now()));
  const { target } = await readableTarget(ctx, username, { portfolio: true });
  const rows = await peopleRepository(ctx.db.kysely).snapshotsOf(target.user.id, range.from, range.to);
  return { target, rows: downsample(rows, query.count) };
}

/** Each day's allocation: cash and each instrument as fractions (decision 0141: never amounts). */
export async function readAssetsHistory(
  ctx: Ctx,
  username: string,
  query: HistoryQuery,
): Promise<{ target: Target; body: AssetsHistory }> {
  const { target, rows } = await history(ctx, username, query);
  return {
    target,
    body: {
      userName: target.user.username,
      results: rows.map((s) => {
        const total = s.cashCents + s.investedCents;
        return {
          date: s.day,
          cashPct: ratio(s.cashCents, total),
          cashOfTotalEquityPct: ratio(s.cashCents, s.equityCents),
          assets: holdingsOf(s).map((h) => ({
            instrumentId: h.instrumentId,
            symbol: h.symbol,
            investedPct: ratio(h.investedCents, total),
            valuePct: ratio(h.valueCents, s.equityCents),
          })),
        };
      }),
    },
  };
}

/** Each day's directional exposure per instrument: signed notional as a fraction of equity. */
export async function readExposureHistory(
  ctx: Ctx,
  username: string,
  query: HistoryQuery,
): Promise<{ target: Target; body: ExposureHistory }> {
  const { target, rows } = await history(ctx, username, query);
  return {
    target,
    body: {
      userName: target.user.username,
      results: rows.map((s) => {
        const items = holdingsOf(s).map((h) => ({
          instrumentId: h.instrumentId,
          symbol: h.symbol,
          netExposurePct: ratio(h.netCents, s.equityCents),
          absExposurePct: ratio(Math.abs(h.netCents), s.equityCents),
        }));
        return {
          date: s.day,
          absExposurePct: ratio(
            holdingsOf(s).reduce((sum, h) => sum + Math.abs(h.netCents), 0),
            s.equityCents,
          ),
          exposureItems: items,
        };
      }),
    },
  };
}
