import { systemActor } from "../../../core/actor.js";
import { isoNow } from "../../../core/clock.js";
import { type Deps, transact, withActor } from "../../context.js";
import { demoCidOf } from "../../identity/identity.view.js";
import { findInstruments, type Instrument } from "../../market/find-instruments.js";
import { ORDER_TYPE_OPEN, STATUS_EXECUTED } from "../../trading/demo-account.js";
import { demoLedger, type PositionRow } from "../../trading/demo-ledger.js";
import { unitsFor } from "../../trading/math.js";
import { type MirrorRow, mirrorsRepository } from "./mirrors.repository.js";

/** Why a mirror did not copy an open (copy_mirror_opens.skip_reason). */
export type SkipReason = "BelowMinimum" | "InsufficientMirrorCash";

/**
 * The copied account's equity for sizing, in cents: its cash, the margin of its open positions and
 * the cash its own copies hold. Valued at cost, so an open (cash → margin) leaves it unchanged and a
 * copy opened a moment later sizes exactly as one opened at once (decision 0145).
 */
export async function sizingEquityCents(deps: Deps, userId: string): Promise<number> {
  const db = deps.db.kysely;
  const account = await demoLedger(db).findAccount(userId);
  if (!account) return 0;
  const row = await db
    .selectFrom("demoPositions")
    .select((eb) => eb.fn.sum<number | string>("amountCents").as("invested"))
    .where("userId", "=", userId)
    .where("status", "=", "open")
    .executeTakeFirst();
  const cash = await db
    .selectFrom("copyMirrors")
    .select((eb) => eb.fn.sum<number | string>("availableCashCents").as("cash"))
    .where("copierUserId", "=", userId)
    .where("status", "<>", "stopped")
    .executeTakeFirst();
  return account.cashCents + Number(row?.invested ?? 0) + Number(cash?.cash ?? 0);
}

/** A mirror's equity at cost: its cash plus the margin of its open positions. */
export async function mirrorEquityCents(deps: Deps, mirror: MirrorRow): Promise<number> {
  const row = await deps.db.kysely
    .selectFrom("demoPositions")
    .select((eb) => eb.fn.sum<number | string>("amountCents").as("invested"))
    .where("mirrorId", "=", mirror.mirrorId)
    .where("status", "=", "open")
    .executeTakeFirst();
  return mirror.availableCashCents + Number(row?.invested ?? 0);
}

/** The copy's margin: the copied margin × the mirror's share of the copied account, to the cent. */
export function mirrorAmountCents(parentAmountCents: number, mirrorEquity: number, parentEquity: number): number {
  if (parentEquity <= 0 || mirrorEquity <= 0) return 0;
  return Math.floor((parentAmountCents * mirrorEquity) / parentEquity);
}

/**
 * Every active mirror of the copied position's owner opens its copy, each in its own transaction:
 * same instrument, direction, leverage and open rate, sized by its share. A mirror that has handled
 * the position already (another instance, a retry, the sweep) is left alone: the claim row's
 * primary key decides. Returns how many copies opened.
 */
export async function followOpen(deps: Deps, parent: PositionRow, only?: MirrorRow[]): Promise<number> {
  if (parent.mirrorId != null || parent.status !== "open") return 0;
  const repo = mirrorsRepository(deps.db.kysely);
  const mirrors = (only ?? (await repo.activeMirrorsOf(parent.userId))).filter(
    (m) => m.startedAt <= parent.openDateTime,
  );
  if (mirrors.length === 0) return 0;
  const ctx = withActor(deps, systemActor("copy-engine"));
  const instrument = (await findInstruments(ctx, [parent.instrumentId])).get(parent.instrumentId);
  if (!instrument) return 0;
  const parentEquity = await sizingEquityCents(deps, parent.userId);
  let opened = 0;
  for (const mirror of mirrors) {
    // Between two copies the event loop serves whatever waits (the trader's next request): on
    // SQLite every statement runs synchronously, so a long run of copies would otherwise hold it.
    await new Promise((resolve) => setImmediate(resolve));
    const equity = await mirrorEquityCents(deps, mirror);
    const amount = mirrorAmountCents(parent.initialAmountCents, equity, parentEquity);
    if (await openCopy(deps, mirror, parent, instrument, amount)) opened++;
  }
  return opened;
}

async function openCopy(
  deps: Deps,
  mirror: MirrorRow,
  parent: PositionRow,
  instrument: Instrument,
  amountCents: number,
): Promise<boolean> {
  return transact(deps, async (trx, record) => {
    const mirrors = mirrorsRepository(trx);
    const now = isoNow(deps.clock);
    const skip = async (reason: SkipReason) => {
      await mirrors.claimOpen(mirror.mirrorId, parent.positionId, null, reason, now);
      return false;
    };
    if (amountCents < Math.round(instrument.minAmount * 100)) return skip("BelowMinimum");
    if (!(await mirrors.debitMirror(mirror.mirrorId, amountCents, now))) return skip("InsufficientMirrorCash");
    const trading = demoLedger(trx);
    const units = unitsFor(amountCents, parent.leverage, parent.openRate);
    const copier = await trx
      .selectFrom("users")
      .select("gcid")
      .where("id", "=", mirror.copierUserId)
      .executeTakeFirstOrThrow();
    const cid = demoCidOf(copier.gcid);
    const common = {
      userId: mirror.copierUserId,
      cid,
      instrumentId: parent.instrumentId,
      isBuy: parent.isBuy,
      leverage: parent.leverage,
      amountCents,
      units,
      // A copy follows its parent's closes (stop-loss and take-profit included): no triggers of its own.
      stopLossRate: 0,
      takeProfitRate: 0,
      isTslEnabled: 0,
      isNoStopLoss: 1,
      isNoTakeProfit: 1,
    };
    const orderId = await trading.insertOrder({
      ...common,
      orderType: ORDER_TYPE_OPEN,
      statusId: STATUS_EXECUTED,
      requestedUnits: null,
      rate: parent.openRate,
      positionId: null,
      unitsToDeduct: null,
      token: `mirror:${mirror.mirrorId}:${parent.positionId}`,
      openDateTime: now,
      lastUpdate: now,
    });
    // The claim is the last write: a second claimer (another instance) fails here and rolls back.
    if (!(await mirrors.claimOpen(mirror.mirrorId, parent.positionId, orderId, null, now))) {
      throw new AlreadyHandled();
    }
    await mirrors.insertMirrorPosition({
      ...common,
      positionId: orderId,
      orderId,
      initialAmountCents: amountCents,
      initialUnits: units,
      openRate: parent.openRate,
      openDateTime: now,
      tslGap: 0,
      status: "open",
      version: 1,
      lastUpdate: now,
      mirrorId: mirror.mirrorId,
      parentPositionId: parent.positionId,
    });
    record({
      type: "PositionOpened",
      userId: mirror.copierUserId,
      positionId: orderId,
      instrumentId: parent.instrumentId,
      isBuy: parent.isBuy === 1,
      openRate: parent.openRate,
      stopLossRate: 0,
      takeProfitRate: 0,
      isTslEnabled: false,
      occurredAt: now,
    });
    return true;
  }).catch((error: unknown) => {
    if (error instanceof AlreadyHandled) return false;
    throw error;
  });
}

/** Another instance or a retry copied this open first: this transaction rolls back. */
class AlreadyHandled extends Error {}
