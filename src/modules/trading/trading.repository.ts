import { type Insertable, type Selectable, sql } from "kysely";
import type { Executor } from "../../infra/db/executor.js";
import { prepared, rowFrom } from "../../infra/db/prepared.js";
import type {
  DemoAccountsTable,
  DemoOrdersTable,
  DemoPositionsTable,
  DemoTradesTable,
  IdempotencyKeysTable,
} from "../../infra/db/schema.js";

/** Rows as the use cases see them: money columns are always numbers (PostgreSQL bigint arrives as text). */
type Money<T, K extends keyof T> = Omit<T, K> & { [P in K]: number };

export type AccountRow = Money<Selectable<DemoAccountsTable>, "cashCents" | "startingCents" | "realizedPnlCents">;
export type OrderRow = Money<Selectable<DemoOrdersTable>, "amountCents">;
export type PositionRow = Money<Selectable<DemoPositionsTable>, "amountCents" | "initialAmountCents">;
export type TradeRow = Money<
  Selectable<DemoTradesTable>,
  "investmentCents" | "initialInvestmentCents" | "netProfitCents"
>;
export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

const account = (r: Selectable<DemoAccountsTable>): AccountRow => ({
  ...r,
  cashCents: Number(r.cashCents),
  startingCents: Number(r.startingCents),
  realizedPnlCents: Number(r.realizedPnlCents),
});
const order = (r: Selectable<DemoOrdersTable>): OrderRow => ({ ...r, amountCents: Number(r.amountCents) });
const position = (r: Selectable<DemoPositionsTable>): PositionRow => ({
  ...r,
  amountCents: Number(r.amountCents),
  initialAmountCents: Number(r.initialAmountCents),
});
const trade = (r: Selectable<DemoTradesTable>): TradeRow => ({
  ...r,
  investmentCents: Number(r.investmentCents),
  initialInvestmentCents: Number(r.initialInvestmentCents),
  netProfitCents: Number(r.netProfitCents),
});

/**
 * The writes of every demo order, compiled once (infra/db/prepared.ts): building and compiling
 * them with Kysely cost more than SQLite running them (docs/decisions/0049). Each inserts every
 * listed column, so the SQL never depends on which values are present.
 */
export const ORDER_COLUMNS = [
  "userId",
  "cid",
  "orderType",
  "statusId",
  "instrumentId",
  "isBuy",
  "leverage",
  "amountCents",
  "units",
  "requestedUnits",
  "rate",
  "stopLossRate",
  "takeProfitRate",
  "isTslEnabled",
  "isNoStopLoss",
  "isNoTakeProfit",
  "positionId",
  "unitsToDeduct",
  "token",
  "referenceId",
  "openDateTime",
  "lastUpdate",
] as const satisfies readonly (keyof Insertable<DemoOrdersTable>)[];
export const POSITION_COLUMNS = [
  "positionId",
  "userId",
  "cid",
  "orderId",
  "instrumentId",
  "isBuy",
  "leverage",
  "amountCents",
  "initialAmountCents",
  "units",
  "initialUnits",
  "openRate",
  "openDateTime",
  "stopLossRate",
  "takeProfitRate",
  "isTslEnabled",
  "tslGap",
  "isNoStopLoss",
  "isNoTakeProfit",
  "status",
  "version",
  "lastUpdate",
] as const satisfies readonly (keyof Insertable<DemoPositionsTable>)[];
const REQUEST_COLUMNS = [
  "userId",
  "requestId",
  "operation",
  "bodyHash",
  "response",
  "createdAt",
] as const satisfies readonly (keyof Insertable<IdempotencyKeysTable>)[];

const valuesOf = (columns: readonly string[], row: object) =>
  columns.map((c) => (row as Record<string, unknown>)[c] ?? null);

const Q = {
  recordRequest: prepared(
    (db, _: null, values: readonly unknown[]) =>
      db
        .insertInto("idempotencyKeys")
        .values(rowFrom<Insertable<IdempotencyKeysTable>>(REQUEST_COLUMNS, values))
        .onConflict((oc) => oc.columns(["userId", "requestId"]).doNothing())
        .returning("requestId"),
    () => "",
  ),
  debit: prepared(
    (db, _: null, [userId, cents, at]: readonly [string, number, string]) =>
      db
        .updateTable("demoAccounts")
        .set({ cashCents: sql`cash_cents - ${cents}`, updatedAt: at })
        .where("userId", "=", userId)
        .where("cashCents", ">=", cents)
        .returning("userId"),
    () => "",
  ),
  insertOrder: prepared(
    (db, _: null, values: readonly unknown[]) =>
      db
        .insertInto("demoOrders")
        .values(rowFrom<Insertable<DemoOrdersTable>>(ORDER_COLUMNS, values))
        .returning("orderId"),
    () => "",
  ),
  insertPosition: prepared(
    (db, _: null, values: readonly unknown[]) =>
      db.insertInto("demoPositions").values(rowFrom<Insertable<DemoPositionsTable>>(POSITION_COLUMNS, values)),
    () => "",
  ),
};

export const tradingRepository = (db: Executor) => ({
  // --- idempotency ---------------------------------------------------------------------------

  /** Records a done request with its response; false when the key was already taken. */
  async recordRequest(row: Insertable<IdempotencyKeysTable>): Promise<boolean> {
    return (await Q.recordRequest(db, null, valuesOf(REQUEST_COLUMNS, row))).length === 1;
  },

  /** Forgets requests recorded before `at` (ISO); returns how many. */
  async deleteRequestsBefore(at: string): Promise<number> {
    const result = await db.deleteFrom("idempotencyKeys").where("createdAt", "<", at).executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  async findRequest(userId: string, requestId: string): Promise<IdempotencyRow | undefined> {
    return db
      .selectFrom("idempotencyKeys")
      .selectAll()
      .where("userId", "=", userId)
      .where("requestId", "=", requestId)
      .executeTakeFirst();
  },

  // --- accounts ------------------------------------------------------------------------------

  async createAccountIfMissing(row: Insertable<DemoAccountsTable>): Promise<void> {
    await db
      .insertInto("demoAccounts")
      .values(row)
      .onConflict((oc) => oc.column("userId").doNothing())
      .execute();
  },

  async findAccount(userId: string): Promise<AccountRow | undefined> {
    const row = await db.selectFrom("demoAccounts").selectAll().where("userId", "=", userId).executeTakeFirst();
    return row && account(row);
  },

  /** Sets the cash (the sandbox's "set a demo balance", decision 0148). */
  async setCash(userId: string, cents: number, at: string): Promise<void> {
    await db
      .updateTable("demoAccounts")
      .set({ cashCents: cents, updatedAt: at })
      .where("userId", "=", userId)
      .execute();
  },

  /** Forgets a user's whole demo account: trades, positions, orders, requests and the account row. */
  async deleteDemoAccount(userId: string): Promise<void> {
    await db.deleteFrom("demoTrades").where("userId", "=", userId).execute();
    await db.deleteFrom("demoPositions").where("userId", "=", userId).execute();
    await db.deleteFrom("demoOrders").where("userId", "=", userId).execute();
    await db.deleteFrom("idempotencyKeys").where("userId", "=", userId).execute();
    await db.deleteFrom("demoAccounts").where("userId", "=", userId).execute();
  },

  /** Guarded debit: false (and nothing changed) when the cash does not cover it. */
  async debit(userId: string, cents: number, at: string): Promise<boolean> {
    return (await Q.debit(db, null, [userId, cents, at])).length === 1;
  },

  /** Returns margin plus profit (or minus loss) to cash and books the realised P/L. */
  async settle(userId: string, returnedCents: number, pnlCents: number, at: string): Promise<void> {
    await db
      .updateTable("demoAccounts")
      .set({
        cashCents: sql`cash_cents + ${returnedCents}`,
        realizedPnlCents: sql`realized_pnl_cents + ${pnlCents}`,
        updatedAt: at,
      })
      .where("userId", "=", userId)
      .execute();
  },

  /** As settle, into a copy's mirror (its position closed): the mirror's cash and realised P/L. */
  async settleMirror(mirrorId: number, returnedCents: number, pnlCents: number, at: string): Promise<void> {
    await db
      .updateTable("copyMirrors")
      .set({
        availableCashCents: sql`available_cash_cents + ${returnedCents}`,
        closedPnlCents: sql`closed_pnl_cents + ${pnlCents}`,
        updatedAt: at,
      })
      .where("mirrorId", "=", mirrorId)
      .execute();
  },

  /** The copier's copies that hold money (not stopped), with whom each copies (copy trading, migration 018). */
  async copyMirrorsOf(copierUserId: string) {
    const rows = await db
      .selectFrom("copyMirrors as m")
      .innerJoin("users as u", "u.id", "m.parentUserId")
      .select([
        "m.mirrorId",
        "m.status",
        "m.initialInvestmentCents",
        "m.depositCents",
        "m.withdrawalCents",
        "m.availableCashCents",
        "m.closedPnlCents",
        "m.stopLossCents",
        "m.startedAt",
        "u.username as parentUsername",
        "u.gcid as parentGcid",
      ])
      .where("m.copierUserId", "=", copierUserId)
      .where("m.status", "<>", "stopped")
      .orderBy("m.mirrorId")
      .execute();
    return rows.map((r) => ({
      ...r,
      initialInvestmentCents: Number(r.initialInvestmentCents),
      depositCents: Number(r.depositCents),
      withdrawalCents: Number(r.withdrawalCents),
      availableCashCents: Number(r.availableCashCents),
      closedPnlCents: Number(r.closedPnlCents),
      stopLossCents: Number(r.stopLossCents),
    }));
  },

  // --- orders --------------------------------------------------------------------------------

  async insertOrder(row: Insertable<DemoOrdersTable>): Promise<number> {
    const [inserted] = await Q.insertOrder(db, null, valuesOf(ORDER_COLUMNS, row));
    if (!inserted) throw new Error("the order insert returned no id");
    return Number(inserted.orderId);
  },

  async findOrder(userId: string, orderId: number): Promise<OrderRow | undefined> {
    const row = await db
      .selectFrom("demoOrders")
      .selectAll()
      .where("userId", "=", userId)
      .where("orderId", "=", orderId)
      .executeTakeFirst();
    return row && order(row);
  },

  // --- positions -----------------------------------------------------------------------------

  /** The position id is given: it is the id of the order that opens it (no extra write to link them). */
  async insertPosition(row: Insertable<DemoPositionsTable> & { positionId: number }): Promise<number> {
    await Q.insertPosition(db, null, valuesOf(POSITION_COLUMNS, row));
    return row.positionId;
  },

  /** Open positions of every user: the metrics' gauge, read at scrape time (the status index answers it). */
  async countOpenPositions(): Promise<number> {
    const row = await db
      .selectFrom("demoPositions")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("status", "=", "open")
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  async findPosition(positionId: number): Promise<PositionRow | undefined> {
    const row = await db
      .selectFrom("demoPositions")
      .selectAll()
      .where("positionId", "=", positionId)
      .executeTakeFirst();
    return row && position(row);
  },

  async openPositionsOf(userId: string): Promise<PositionRow[]> {
    const rows = await db
      .selectFrom("demoPositions")
      .selectAll()
      .where("userId", "=", userId)
      .where("status", "=", "open")
      .orderBy("positionId")
      .execute();
    return rows.map(position);
  },

  /**
   * Stores where an open trailing stop stands now (only its level: no version change, so a close
   * racing it is never refused). Returns whether a row changed.
   */
  async saveTrailingStop(positionId: number, stopLossRate: number): Promise<boolean> {
    const result = await db
      .updateTable("demoPositions")
      .set({ stopLossRate })
      .where("positionId", "=", positionId)
      .where("status", "=", "open")
      .where("isTslEnabled", "=", 1)
      .where("stopLossRate", "<>", stopLossRate)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /** Every open position with a stop-loss or take-profit (the trigger index is built from these). */
  async openPositionsWithTriggers(): Promise<PositionRow[]> {
    const rows = await db
      .selectFrom("demoPositions")
      .selectAll()
      .where("status", "=", "open")
      .where((eb) => eb.or([eb("stopLossRate", ">", 0), eb("takeProfitRate", ">", 0)]))
      .execute();
    return rows.map(position);
  },

  /**
   * The guarded write of every close: it applies only to the version that was read, while the
   * position is open. false = someone else closed or changed it first.
   */
  async reducePosition(
    positionId: number,
    version: number,
    change: { amountCents: number; units: number; closed: boolean; at: string },
  ): Promise<boolean> {
    const result = await db
      .updateTable("demoPositions")
      .set({
        amountCents: change.amountCents,
        units: change.units,
        status: change.closed ? "closed" : "open",
        version: version + 1,
        lastUpdate: change.at,
      })
      .where("positionId", "=", positionId)
      .where("version", "=", version)
      .where("status", "=", "open")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  // --- trades (history) ----------------------------------------------------------------------

  async insertTrade(row: Insertable<DemoTradesTable>): Promise<void> {
    await db.insertInto("demoTrades").values(row).execute();
  },

  async tradesOf(userId: string, since: string | undefined, limit: number, offset: number): Promise<TradeRow[]> {
    let q = db.selectFrom("demoTrades").selectAll().where("userId", "=", userId);
    if (since) q = q.where("closeDateTime", ">=", since);
    const rows = await q
      .orderBy("closeDateTime", "desc")
      .orderBy("tradeId", "desc")
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(trade);
  },
});

export type TradingRepository = ReturnType<typeof tradingRepository>;
