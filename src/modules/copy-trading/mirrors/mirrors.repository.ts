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

  /** The mirrors that follow `parentUserId` now (active: paused ones open nothing new). */
  async activeMirrorsOf(parentUserId: string): Promise<MirrorRow[]> {
    const rows = await db
      .selectFrom("copyMirrors")
      .selectAll()
      .where("parentUserId", "=", parentUserId)
      .where("status", "=", ACTIVE)
      .orderBy("mirrorId")
      .execute();
    return rows.map(mirror);
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

  /**
   * Claims (mirror, copied position) for this transaction: false when it was handled already (by
   * this or another instance). The primary key decides; PostgreSQL makes a concurrent claimer wait
   * for the first one's commit and then find the row.
   */
  async claimOpen(
    mirrorId: number,
    parentPositionId: number,
    positionId: number | null,
    skipReason: string | null,
    at: string,
  ): Promise<boolean> {
    const rows = await db
      .insertInto("copyMirrorOpens")
      .values({ mirrorId, parentPositionId, positionId, skipReason, handledAt: at })
      .onConflict((oc) => oc.columns(["mirrorId", "parentPositionId"]).doNothing())
      .returning("mirrorId")
      .execute();
    return rows.length === 1;
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

  /** Guarded: false (nothing changed) when the mirror's cash does not cover it, or it is no longer active. */
  async debitMirror(mirrorId: number, cents: number, at: string): Promise<boolean> {
    const result = await db
      .updateTable("copyMirrors")
      .set({ availableCashCents: sql`available_cash_cents - ${cents}`, updatedAt: at })
      .where("mirrorId", "=", mirrorId)
      .where("status", "=", ACTIVE)
      .where("availableCashCents", ">=", cents)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
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

  async insertMirrorPosition(row: Insertable<DemoPositionsTable> & { positionId: number }): Promise<void> {
    await db.insertInto("demoPositions").values(row).execute();
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

  /** The copies' open positions of one copied position. */
  async openChildrenOf(parentPositionId: number): Promise<PositionRow[]> {
    const rows = await db
      .selectFrom("demoPositions")
      .selectAll()
      .where("parentPositionId", "=", parentPositionId)
      .where("status", "=", "open")
      .orderBy("positionId")
      .execute();
    return rows.map(position);
  },

  /**
   * Copied positions a mirror has not handled yet: the parent's own (not copied) positions opened
   * since the mirror started, still open, with no claim row. The sweep's question after a restart.
   */
  async unhandledParentOpens(mirror: MirrorRow): Promise<PositionRow[]> {
    const rows = await db
      .selectFrom("demoPositions as p")
      .selectAll("p")
      .where("p.userId", "=", mirror.parentUserId)
      .where("p.status", "=", "open")
      .where("p.mirrorId", "is", null)
      .where("p.openDateTime", ">=", mirror.startedAt)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom("copyMirrorOpens as o")
              .select("o.mirrorId")
              .where("o.mirrorId", "=", mirror.mirrorId)
              .whereRef("o.parentPositionId", "=", "p.positionId"),
          ),
        ),
      )
      .orderBy("p.positionId")
      .execute();
    return rows.map(position);
  },

  /** Open copies whose copied position is closed or smaller: the sweep's other question. */
  async childrenBehindParents(): Promise<PositionRow[]> {
    const rows = await db
      .selectFrom("demoPositions as c")
      .innerJoin("demoPositions as p", "p.positionId", "c.parentPositionId")
      .selectAll("c")
      .where("c.status", "=", "open")
      .where((eb) => eb.or([eb("p.status", "<>", "open"), eb("p.version", ">", 1)]))
      .execute();
    return rows.map(position);
  },

  async parentUsersWithActiveMirrors(): Promise<string[]> {
    const rows = await db
      .selectFrom("copyMirrors")
      .select("parentUserId")
      .distinct()
      .where("status", "=", ACTIVE)
      .execute();
    return rows.map((r) => r.parentUserId);
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
