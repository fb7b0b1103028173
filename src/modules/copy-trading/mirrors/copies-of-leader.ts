import type { Deps } from "../../context.js";
import { ACTIVE, mirrorsRepository, PAUSED } from "./mirrors.repository.js";

/** One copy of a leader as other modules may read it: who copies, since when, and its money in cents. */
export interface LeaderCopy {
  mirrorId: number;
  copierUserId: string;
  startedAt: string;
  /** initial investment + funds added − funds taken back. */
  netFundingCents: number;
  availableCashCents: number;
  closedPnlCents: number;
  /** Margin of the copy's open positions. */
  openMarginCents: number;
}

/**
 * The copies that follow `leaderUserId` now (active or paused; a stopping copy is being closed),
 * oldest first: the copy-trading module's answer to "who copies this user" (for the people
 * module's copier reads). The caller has checked who may ask.
 */
export async function copiesOfLeader(deps: Pick<Deps, "db">, leaderUserId: string): Promise<LeaderCopy[]> {
  const repo = mirrorsRepository(deps.db.kysely);
  const mirrors = (await repo.copiersOf(leaderUserId)).filter((m) => m.status === ACTIVE || m.status === PAUSED);
  const margins = new Map<number, number>();
  for (const p of await repo.openPositionsOfMirrors(mirrors.map((m) => m.mirrorId))) {
    if (p.mirrorId != null) margins.set(p.mirrorId, (margins.get(p.mirrorId) ?? 0) + p.amountCents);
  }
  return mirrors.map((m) => ({
    mirrorId: m.mirrorId,
    copierUserId: m.copierUserId,
    startedAt: m.startedAt,
    netFundingCents: m.initialInvestmentCents + m.depositCents - m.withdrawalCents,
    availableCashCents: m.availableCashCents,
    closedPnlCents: m.closedPnlCents,
    openMarginCents: margins.get(m.mirrorId) ?? 0,
  }));
}
