import { isoNow } from "../../../core/clock.js";
import { type Deps, transact } from "../../context.js";
import { demoLedger } from "../../trading/demo-ledger.js";
import { announceCopiers } from "./announce-copiers.js";
import { closeCopyAtMarket } from "./follow-close.js";
import { ACTIVE, mirrorsRepository, PAUSED, STOPPED, STOPPING } from "./mirrors.repository.js";

/**
 * Stops a copy: no new opens from now on, every open copy closed at market into the mirror's cash,
 * then that cash returned to the copier's demo account with the mirror's realised P/L booked there.
 * Safe to run again (the sweep finishes a stop a crash interrupted): each step is guarded.
 */
export async function stopMirror(deps: Deps, mirrorId: number): Promise<void> {
  const db = deps.db.kysely;
  await mirrorsRepository(db).setStatus(mirrorId, [ACTIVE, PAUSED], STOPPING, isoNow(deps.clock));
  await finishStop(deps, mirrorId);
}

/**
 * A stopped mirror's remaining positions closed and its cash returned (idempotent); then the
 * copied user's copiers counted again for the people module (decision 0164).
 */
export async function finishStop(deps: Deps, mirrorId: number): Promise<void> {
  const repo = mirrorsRepository(deps.db.kysely);
  const leader = (await repo.findMirror(mirrorId))?.parentUserId;
  for (let round = 0; round < 5; round++) {
    const open = await repo.openPositionsOfMirror(mirrorId);
    if (open.length === 0) break;
    for (const position of open) await closeCopyAtMarket(deps, position);
  }
  await transact(deps, async (trx) => {
    const mirrors = mirrorsRepository(trx);
    const mirror = await mirrors.findMirror(mirrorId);
    if (mirror?.status !== STOPPING) return;
    if ((await mirrors.openPositionsOfMirror(mirrorId)).length > 0) return;
    const now = isoNow(deps.clock);
    // stopping → stopped happens once: the one transaction that makes it returns the cash.
    const drained = await trx
      .updateTable("copyMirrors")
      .set({ availableCashCents: 0, status: STOPPED, stoppedAt: now, updatedAt: now })
      .where("mirrorId", "=", mirrorId)
      .where("status", "=", STOPPING)
      .where("availableCashCents", "=", mirror.availableCashCents)
      .executeTakeFirst();
    if (Number(drained.numUpdatedRows) !== 1) return;
    // The cash that comes back holds the mirror's whole realised P/L: the account books it now.
    await demoLedger(trx).settle(mirror.copierUserId, mirror.availableCashCents, mirror.closedPnlCents, now);
  });
  if (leader !== undefined) await announceCopiers(deps, leader);
}
