import { type Insertable, type Selectable, sql } from "kysely";
import type { Executor } from "../../../infra/db/executor.js";
import type { CopyMirrorsTable, DemoPositionsTable } from "../../../infra/db/schema.js";
import type { PositionRow } from "../../trading/demo-ledger.js";

type Money<T, K extends keyof T> = Omit<T, K> & { [P in K]: number };
export type MirrorRow = Money<
  Selectable<CopyMirrorsTable>,
  | "initialInvestmentCents"
  | "depositCents"
  | "withdrawalCents"
  | "availableCashCents"
  | "closedPnlCents"
  | "stopLossCents"
>;

const mirror = (r: Selectable<CopyMirrorsTable>): MirrorRow => ({
  ...r,
  initialInvestmentCents: Number(r.initialInvestmentCents),
  depositCents: Number(r.depositCents),
  withdrawalCents: Number(r.withdrawalCents),
  availableCashCents: Number(r.availableCashCents),
  closedPnlCents: Number(r.closedPnlCents),
  stopLossCents: Number(r.stopLossCents),
});
const position = (r: Selectable<DemoPositionsTable>): PositionRow => ({
  ...r,
  amountCents: Number(r.amountCents),
  initialAmountCents: Number(r.initialAmountCents),
});

export const ACTIVE = "active";
export const PAUSED = "paused";
/** Stopping: no new opens; its positions are being closed and its cash not yet returned. */
export const STOPPING = "stopping";
export const STOPPED = "stopped";

export const mirrorsRepository = (db: Executor) => ({
  async insertMirror(row: Insertable<CopyMirrorsTable>): Promise<number> {
    const inserted = await db.insertInto("copyMirrors").values(row).returning("mirrorId").executeTakeFirstOrThrow();
    return Number(inserted.mirrorId);
  },

  async findMirror(mirrorId: number): Promise<MirrorRow | undefined> {
    const row = await db.selectFrom("copyMirrors").selectAll().where("mirrorId", "=", mirrorId).executeTakeFirst();
    return row && mirror(row);
  },

  /** The copier's mirrors that are not stopped. */
  async mirrorsOfCopier(copierUserId: string): Promise<MirrorRow[]> {
    const rows = await db
      .selectFrom("copyMirrors")
      .selectAll()
      .where("copierUserId", "=", copierUserId)
      .where("status", "<>", STOPPED)
      .orderBy("mirrorId")
      .execute();
    return rows.map(mirror);
  },

  async countCopiers(parentUserId: string): Promise<number> {
    const row = await db
      .selectFrom("copyMirrors")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("parentUserId", "=", parentUserId)
      .where("status", "<>", STOPPED)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  async copiersOf(parentUserId: string): Promise<MirrorRow[]> {
    const rows = await db
      .selectFrom("copyMirrors")
      .selectAll()
      .where("parentUserId", "=", parentUserId)
      .where("status", "<>", STOPPED)
      .orderBy("mirrorId")
      .execute();
    return rows.map(mirror);
  },

  async skipsOf(mirrorId: number): Promise<{ parentPositionId: number; skipReason: string }[]> {
    const rows = await db
      .selectFrom("copyMirrorOpens")
      .select(["parentPositionId", "skipReason"])
      .where("mirrorId", "=", mirrorId)
      .where("skipReason", "is not", null)
      .orderBy("parentPositionId")
      .execute();
    return rows.map((r) => ({ parentPositionId: r.parentPositionId, skipReason: r.skipReason ?? "" }));
  },

  async fund(mirrorId: number, depositCents: number, withdrawalCents: number, at: string): Promise<boolean> {
    const net = depositCents - withdrawalCents;
    const result = await db
      .updateTable("copyMirrors")
      .set({
        availableCashCents: sql`available_cash_cents + ${net}`,
        depositCents: sql`deposit_cents + ${depositCents}`,
        withdrawalCents: sql`withdrawal_cents + ${withdrawalCents}`,
        updatedAt: at,
      })
      .where("mirrorId", "=", mirrorId)
      .where("status", "<>", STOPPED)
      .where("availableCashCents", ">=", -net)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async setStatus(mirrorId: number, from: readonly string[], to: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable("copyMirrors")
      .set({ status: to, updatedAt: at, ...(to === STOPPED ? { stoppedAt: at } : {}) })
      .where("mirrorId", "=", mirrorId)
      .where("status", "in", [...from])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async openPositionsOfMirror(mirrorId: number): Promise<PositionRow[]> {
    const rows = await db
      .selectFrom("demoPositions")
      .selectAll()
      .where("mirrorId", "=", mirrorId)
      .where("status", "=", "open")
      .orderBy("positionId")
      .execute();
    return rows.map(position);
  },

  async openPositionsOfMirrors(mirrorIds: readonly number[]): Promise<PositionRow[]> {
    if (mirrorIds.length === 0) return [];
    const rows = await db
      .selectFrom("demoPositions")
      .selectAll()
      .where("mirrorId", "in", [...mirrorIds])
      .where("status", "=", "open")
      .orderBy("positionId")
      .execute();
    return rows.map(position);
  },

  /** The next `limit` open copies of one copied position after position `after`, in position order. */
  async openChildrenOf(parentPositionId: number, after = 0, limit = 1_000_000): Promise<PositionRow[]> {
    const rows = await db
      .selectFrom("demoPositions")
      .selectAll()
      .where("parentPositionId", "=", parentPositionId)
      .where("status", "=", "open")
      .where("positionId", ">", after)
      .orderBy("positionId")
      .limit(limit)
      .execute();
    return rows.map(position);
  },

  /** A position's latest close (its latest trade), or undefined when it never closed any. */
  async lastClose(positionId: number): Promise<{ closeRate: number; closeReason: string } | undefined> {
    return db
      .selectFrom("demoTrades")
      .select(["closeRate", "closeReason"])
      .where("positionId", "=", positionId)
      .orderBy("tradeId", "desc")
      .limit(1)
      .executeTakeFirst();
  },
});

export type MirrorsRepository = ReturnType<typeof mirrorsRepository>;
