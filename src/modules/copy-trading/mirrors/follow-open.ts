import { systemActor } from "../../../core/actor.js";
import { isoNow } from "../../../core/clock.js";
import type { Executor } from "../../../infra/db/executor.js";
import { type Deps, transact, withActor } from "../../context.js";
import { demoCidOf } from "../../identity/identity.view.js";
import { findInstruments, type Instrument } from "../../market/find-instruments.js";
import { ORDER_TYPE_OPEN, STATUS_EXECUTED } from "../../trading/demo-account.js";
import { demoLedger, type PositionRow } from "../../trading/demo-ledger.js";
import { unitsFor } from "../../trading/math.js";
import { copyBatchRepository } from "./copy-batch.repository.js";
import type { MirrorRow } from "./mirrors.repository.js";

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

/** Mirrors per transaction (decision 0162): one claim, one debit, a few inserts for all of them. */
export const COPY_BATCH = 250;

/**
 * Every active mirror of the copied position's owner opens its copy: same instrument, direction,
 * leverage and open rate, sized by its share. Mirrors are taken in batches of COPY_BATCH in mirror
 * order, each batch in one transaction of a few statements (decision 0162), with a turn of the
 * event loop between batches so that whatever waits (the trader's next request) is served. A
 * mirror that has handled the position already (another instance, a retry, the sweep) is left
 * alone: the claim row's primary key decides. `only` limits it to those mirrors (the sweep).
 * Returns how many copies opened.
 */
export async function followOpen(deps: Deps, parent: PositionRow, only?: readonly number[]): Promise<number> {
  if (parent.mirrorId != null || parent.status !== "open") return 0;
  const ctx = withActor(deps, systemActor("copy-engine"));
  const instrument = (await findInstruments(ctx, [parent.instrumentId])).get(parent.instrumentId);
  if (!instrument) return 0;
  const parentEquity = await sizingEquityCents(deps, parent.userId);
  let opened = 0;
  let after = 0;
  for (let i = 0; only === undefined || i < only.length; i += COPY_BATCH) {
    const ids = only?.slice(i, i + COPY_BATCH);
    // Between two batches the event loop serves whatever waits: on SQLite every statement runs
    // synchronously, so a long run of batches would otherwise hold it.
    await new Promise((resolve) => setImmediate(resolve));
    const batch = await transact(deps, (trx) => openBatch(deps, trx, parent, instrument, parentEquity, after, ids));
    opened += batch.opened;
    if (ids === undefined) {
      if (batch.last === undefined || !batch.full) break;
      after = batch.last;
    }
  }
  return opened;
}

/**
 * One batch in the caller's transaction: reads the batch's mirrors (cash and open margin, so each
 * size is computed from the state it is written over), claims them all in one statement, debits
 * the claimed ones in one guarded statement, then writes their orders and positions in one
 * statement each. Sizes below the instrument's minimum and debits the cash does not cover are
 * recorded on the claim row. Copies record no per-copy event (decision 0162).
 */
async function openBatch(
  deps: Deps,
  trx: Executor,
  parent: PositionRow,
  instrument: Instrument,
  parentEquity: number,
  after: number,
  only: readonly number[] | undefined,
): Promise<{ opened: number; last: number | undefined; full: boolean }> {
  const batch = copyBatchRepository(trx);
  const mirrors = await batch.mirrorsToCopy(
    parent.userId,
    parent.openDateTime,
    only ? 0 : after,
    only ? only.length : COPY_BATCH,
    only,
  );
  const last = mirrors.at(-1)?.mirrorId;
  const full = mirrors.length === COPY_BATCH;
  if (mirrors.length === 0) return { opened: 0, last, full };
  const now = isoNow(deps.clock);
  const minimum = Math.round(instrument.minAmount * 100);
  const sized = mirrors.map((m) => ({
    mirror: m,
    cents: mirrorAmountCents(parent.initialAmountCents, m.availableCashCents + m.openMarginCents, parentEquity),
  }));
  const below = (cents: number) => cents <= 0 || cents < minimum;
  const claimed = await batch.claimOpens(
    parent.positionId,
    sized.map((s) => ({ mirrorId: s.mirror.mirrorId, skipReason: below(s.cents) ? "BelowMinimum" : null })),
    now,
  );
  const toOpen = sized.filter((s) => claimed.has(s.mirror.mirrorId) && !below(s.cents));
  const debited = await batch.debitMirrors(
    toOpen.map((s) => ({ mirrorId: s.mirror.mirrorId, cents: s.cents })),
    now,
  );
  await batch.markSkipped(
    parent.positionId,
    toOpen.filter((s) => !debited.has(s.mirror.mirrorId)).map((s) => s.mirror.mirrorId),
    "InsufficientMirrorCash" satisfies SkipReason,
  );
  const copies = toOpen
    .filter((s) => debited.has(s.mirror.mirrorId))
    .map(({ mirror, cents }) => ({
      mirror,
      token: `mirror:${mirror.mirrorId}:${parent.positionId}`,
      common: {
        userId: mirror.copierUserId,
        cid: demoCidOf(mirror.gcid),
        instrumentId: parent.instrumentId,
        isBuy: parent.isBuy,
        leverage: parent.leverage,
        amountCents: cents,
        units: unitsFor(cents, parent.leverage, parent.openRate),
        // A copy follows its parent's closes (stop-loss and take-profit included): no triggers of its own.
        stopLossRate: 0,
        takeProfitRate: 0,
        isTslEnabled: 0,
        isNoStopLoss: 1,
        isNoTakeProfit: 1,
      },
    }));
  if (copies.length === 0) return { opened: 0, last, full };
  const ledger = demoLedger(trx);
  const orderIds = await ledger.insertOrders(
    // The shared part goes last: fields after a spread give each row a hidden class of its own (0213).
    copies.map((c) => ({
      orderType: ORDER_TYPE_OPEN,
      statusId: STATUS_EXECUTED,
      requestedUnits: null,
      rate: parent.openRate,
      positionId: null,
      unitsToDeduct: null,
      token: c.token,
      referenceId: null,
      openDateTime: now,
      lastUpdate: now,
      ...c.common,
    })),
  );
  const positions = copies.map((c) => {
    const orderId = orderIds.get(c.token);
    if (orderId === undefined) throw new Error(`copy order ${c.token} was not written`);
    return { orderId, ...c };
  });
  await ledger.insertPositions(
    positions.map((c) => ({
      positionId: c.orderId,
      orderId: c.orderId,
      initialAmountCents: c.common.amountCents,
      initialUnits: c.common.units,
      openRate: parent.openRate,
      openDateTime: now,
      tslGap: 0,
      status: "open",
      version: 1,
      lastUpdate: now,
      mirrorId: c.mirror.mirrorId,
      parentPositionId: parent.positionId,
      ...c.common,
    })),
  );
  await batch.setClaimPositions(
    parent.positionId,
    positions.map((c) => ({ mirrorId: c.mirror.mirrorId, positionId: c.orderId })),
  );
  return { opened: positions.length, last, full };
}
