import { type Insertable, type Selectable, sql } from "kysely";
import type { Executor } from "../../../infra/db/executor.js";
import type { DemoOrdersTable } from "../../../infra/db/schema.js";
import type { OrderRow } from "../trading.repository.js";

const order = (r: Selectable<DemoOrdersTable>): OrderRow => ({ ...r, amountCents: Number(r.amountCents) });

/** Order statuses of the book (docs/decisions/0123): upstream's 1, 2, 3, plus pending and expired. */
export const STATUS_PENDING = 0;
export const STATUS_CANCELLED = 2;
export const STATUS_REJECTED = 3;
export const STATUS_EXPIRED = 4;
/** An entry (market-if-touched) order to open (decision 0123). */
export const ORDER_TYPE_ENTRY = 1;

/**
 * `status_id = 0` written into the SQL, not bound: the partial index `demo_orders_pending` (its
 * `where status_id = 0`, decision 0208) then matches the statement's text. SQLite matches a bound
 * value too, but only by preparing the statement again each time a value is bound.
 */
const PENDING = sql.lit(STATUS_PENDING);

/** The order book's queries beyond the market orders' own (../trading.repository.ts). */
export const ordersRepository = (db: Executor) => ({
  async insertEntryOrder(row: Insertable<DemoOrdersTable>): Promise<number> {
    const inserted = await db.insertInto("demoOrders").values(row).returning("orderId").executeTakeFirstOrThrow();
    return Number(inserted.orderId);
  },

  async findById(orderId: number): Promise<OrderRow | undefined> {
    const row = await db.selectFrom("demoOrders").selectAll().where("orderId", "=", orderId).executeTakeFirst();
    return row && order(row);
  },

  /** The caller's order placed with `referenceId` (its x-request-id); the newest when several. */
  async findByReference(userId: string, referenceId: string): Promise<OrderRow | undefined> {
    const row = await db
      .selectFrom("demoOrders")
      .selectAll()
      .where("userId", "=", userId)
      .where("referenceId", "=", referenceId)
      .orderBy("orderId", "desc")
      .executeTakeFirst();
    return row && order(row);
  },

  /** The caller's pending orders, oldest first (the portfolio's `orders`). */
  async pendingOf(userId: string): Promise<OrderRow[]> {
    const rows = await db
      .selectFrom("demoOrders")
      .selectAll()
      .where("statusId", "=", PENDING)
      .where("userId", "=", userId)
      .orderBy("orderId")
      .execute();
    return rows.map(order);
  },

  /** Every pending entry order (the entry index is built from these at start). */
  async allPending(): Promise<OrderRow[]> {
    const rows = await db.selectFrom("demoOrders").selectAll().where("statusId", "=", PENDING).execute();
    return rows.map(order);
  },

  /**
   * The one guarded transition out of pending: applies only while the order is still pending, so
   * of an execution and a cancel racing, exactly one changes the row. false = it had left already.
   */
  async leavePending(
    orderId: number,
    change: {
      statusId: number;
      at: string;
      positionId?: number;
      amountCents?: number;
      units?: number;
      rate?: number;
      errorMessage?: string;
    },
  ): Promise<boolean> {
    const result = await db
      .updateTable("demoOrders")
      .set({
        statusId: change.statusId,
        lastUpdate: change.at,
        ...(change.positionId !== undefined ? { positionId: change.positionId } : {}),
        ...(change.amountCents !== undefined ? { amountCents: change.amountCents } : {}),
        ...(change.units !== undefined ? { units: change.units } : {}),
        ...(change.rate !== undefined ? { rate: change.rate } : {}),
        ...(change.errorMessage !== undefined ? { errorMessage: change.errorMessage } : {}),
      })
      .where("orderId", "=", orderId)
      .where("statusId", "=", STATUS_PENDING)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Pending orders whose time is up (at most `limit`). */
  async duePending(at: string, limit: number): Promise<OrderRow[]> {
    const rows = await db
      .selectFrom("demoOrders")
      .selectAll()
      .where("statusId", "=", PENDING)
      .where("expiresAt", "<=", at)
      .limit(limit)
      .execute();
    return rows.map(order);
  },
});
