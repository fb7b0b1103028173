import { sql } from "kysely";
import type { Executor } from "../../../infra/db/executor.js";
import { prepared } from "../../../infra/db/prepared.js";
import { ACTIVE } from "./mirrors.repository.js";

/** A mirror as one copy open needs it: who copies, the account's gcid, and its equity at cost. */
export interface MirrorToCopy {
  mirrorId: number;
  copierUserId: string;
  gcid: number;
  availableCashCents: number;
  openMarginCents: number;
}

/** `case mirror_id when ? then cast(? as bigint) … end`: one value per mirror in one statement. */
const perMirror = (ids: readonly number[], values: readonly unknown[]) =>
  sql<number>`case mirror_id ${sql.join(
    ids.map((id, i) => sql`when ${id} then cast(${values[i]} as bigint)`),
    sql` `,
  )} end`;

/**
 * The statements of a batch of copy opens (decision 0162), each compiled once per batch size
 * (infra/db/prepared.ts): the page of mirrors with their open margin, the claims, the guarded
 * debits, and the claims' positions.
 */
const Q = {
  page: prepared(
    (
      db,
      byIds: boolean,
      [parentUserId, openedAt, after, limit, ids]: readonly [string, string, number, number, number[]],
    ) => {
      let q = db
        .selectFrom("copyMirrors as m")
        .innerJoin("users as u", "u.id", "m.copierUserId")
        .select(["m.mirrorId", "m.copierUserId", "u.gcid", "m.availableCashCents"])
        .select((eb) =>
          eb.fn
            .coalesce(
              eb
                .selectFrom("demoPositions as p")
                .select((e) => e.fn.sum<number | string>("p.amountCents").as("s"))
                .whereRef("p.mirrorId", "=", "m.mirrorId")
                .where("p.status", "=", "open"),
              sql<number>`0`,
            )
            .as("openMarginCents"),
        )
        .where("m.parentUserId", "=", parentUserId)
        .where("m.status", "=", ACTIVE)
        .where("m.startedAt", "<=", openedAt)
        .where("m.mirrorId", ">", after);
      if (byIds) q = q.where("m.mirrorId", "in", ids);
      return q.orderBy("m.mirrorId").limit(limit);
    },
    (byIds) => (byIds ? "ids" : "page"),
  ),
  claim: prepared(
    (db, _: null, [ids, parentPositionId, reasons, at]: readonly [number[], number, (string | null)[], string]) =>
      db
        .insertInto("copyMirrorOpens")
        .values(
          ids.map((mirrorId, i) => ({
            mirrorId,
            parentPositionId,
            positionId: null,
            skipReason: reasons[i] ?? null,
            handledAt: at,
          })),
        )
        .onConflict((oc) => oc.columns(["mirrorId", "parentPositionId"]).doNothing())
        .returning("mirrorId"),
    () => "",
  ),
  debit: prepared(
    (db, _: null, [ids, cents, at]: readonly [number[], number[], string]) =>
      db
        .updateTable("copyMirrors")
        .set({ availableCashCents: sql`available_cash_cents - ${perMirror(ids, cents)}`, updatedAt: at })
        .where("mirrorId", "in", ids)
        .where("status", "=", ACTIVE)
        .where("availableCashCents", ">=", perMirror(ids, cents))
        .returning("mirrorId"),
    () => "",
  ),
  skip: prepared(
    (db, _: null, [ids, parentPositionId, reason]: readonly [number[], number, string]) =>
      db
        .updateTable("copyMirrorOpens")
        .set({ skipReason: reason })
        .where("parentPositionId", "=", parentPositionId)
        .where("mirrorId", "in", ids),
    () => "",
  ),
  positions: prepared(
    (db, _: null, [ids, parentPositionId, positionIds]: readonly [number[], number, number[]]) =>
      db
        .updateTable("copyMirrorOpens")
        .set({ positionId: perMirror(ids, positionIds) })
        .where("parentPositionId", "=", parentPositionId)
        .where("mirrorId", "in", ids),
    () => "",
  ),
};

const ids = (rows: readonly { mirrorId: number | string }[]) => new Set(rows.map((r) => Number(r.mirrorId)));

export const copyBatchRepository = (db: Executor) => ({
  /**
   * Which of these users anyone copies now: the engine's cheap question on the opens queued
   * together (one statement for all of them, decision 0183).
   */
  async withActiveMirrors(parentUserIds: readonly string[]): Promise<Set<string>> {
    if (parentUserIds.length === 0) return new Set();
    const rows = await db
      .selectFrom("copyMirrors")
      .select("parentUserId")
      .distinct()
      .where("parentUserId", "in", parentUserIds)
      .where("status", "=", ACTIVE)
      .execute();
    return new Set(rows.map((r) => r.parentUserId));
  },

  /**
   * The next `limit` active mirrors of `parentUserId` after mirror `after`, started by `openedAt`
   * (all of them, or only `only`), in mirror order, with the margin of their open copies.
   */
  async mirrorsToCopy(
    parentUserId: string,
    openedAt: string,
    after: number,
    limit: number,
    only?: readonly number[],
  ): Promise<MirrorToCopy[]> {
    const rows = await Q.page(db, only !== undefined, [parentUserId, openedAt, after, limit, [...(only ?? [0])]]);
    return rows.map((r) => ({
      mirrorId: Number(r.mirrorId),
      copierUserId: r.copierUserId,
      gcid: Number(r.gcid),
      availableCashCents: Number(r.availableCashCents),
      openMarginCents: Number(r.openMarginCents),
    }));
  },

  /**
   * Claims (mirror, copied position) for each mirror, with its skip reason if it is skipped
   * already: returns the mirrors this transaction claimed. The primary key decides, as for one
   * (decision 0145): a mirror claimed by another instance or an earlier run is not returned.
   */
  async claimOpens(
    parentPositionId: number,
    claims: readonly { mirrorId: number; skipReason: string | null }[],
    at: string,
  ): Promise<Set<number>> {
    if (claims.length === 0) return new Set();
    const rows = await Q.claim(db, null, [
      claims.map((c) => c.mirrorId),
      parentPositionId,
      claims.map((c) => c.skipReason),
      at,
    ]);
    return ids(rows);
  },

  /** Guarded debits, one amount per mirror: returns the mirrors whose cash covered it (and still active). */
  async debitMirrors(debits: readonly { mirrorId: number; cents: number }[], at: string): Promise<Set<number>> {
    if (debits.length === 0) return new Set();
    const rows = await Q.debit(db, null, [debits.map((d) => d.mirrorId), debits.map((d) => d.cents), at]);
    return ids(rows);
  },

  async markSkipped(parentPositionId: number, mirrorIds: readonly number[], reason: string): Promise<void> {
    if (mirrorIds.length > 0) await Q.skip(db, null, [[...mirrorIds], parentPositionId, reason]);
  },

  async setClaimPositions(parentPositionId: number, opened: readonly { mirrorId: number; positionId: number }[]) {
    if (opened.length === 0) return;
    await Q.positions(db, null, [opened.map((o) => o.mirrorId), parentPositionId, opened.map((o) => o.positionId)]);
  },

  /**
   * The open positions of users someone copies actively (their own, not copies) and the copied
   * positions whose copies may be behind (closed, or changed since opened, with open copies): what
   * the sweep looks at, found from the copied users' positions (an index seek per user).
   */
  async sweepCandidates(): Promise<{ positionId: number; status: string; version: number }[]> {
    const rows = await db
      .selectFrom("demoPositions as p")
      .select(["p.positionId", "p.status", "p.version"])
      .where("p.userId", "in", (eb) =>
        eb.selectFrom("copyMirrors").select("parentUserId").distinct().where("status", "<>", "stopped"),
      )
      .where("p.mirrorId", "is", null)
      .where((eb) =>
        eb.or([
          eb("p.status", "=", "open"),
          eb.exists(
            eb
              .selectFrom("demoPositions as c")
              .select("c.positionId")
              .whereRef("c.parentPositionId", "=", "p.positionId")
              .where("c.status", "=", "open"),
          ),
        ]),
      )
      .orderBy("p.positionId")
      .execute();
    return rows.map((r) => ({ positionId: Number(r.positionId), status: r.status, version: Number(r.version) }));
  },

  /**
   * The (copied position, mirror) pairs among `positionIds` the engine has not handled: active
   * mirrors started by the position's open, with no claim row.
   */
  async unhandledOpens(positionIds: readonly number[]): Promise<{ parentPositionId: number; mirrorId: number }[]> {
    if (positionIds.length === 0) return [];
    const rows = await db
      .selectFrom("copyMirrors as m")
      .innerJoin("demoPositions as p", "p.userId", "m.parentUserId")
      .select(["p.positionId as parentPositionId", "m.mirrorId"])
      .where("p.positionId", "in", [...positionIds])
      .where("m.status", "=", ACTIVE)
      .where("p.status", "=", "open")
      .whereRef("p.openDateTime", ">=", "m.startedAt")
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom("copyMirrorOpens as o")
              .select("o.mirrorId")
              .whereRef("o.mirrorId", "=", "m.mirrorId")
              .whereRef("o.parentPositionId", "=", "p.positionId"),
          ),
        ),
      )
      .orderBy("p.positionId")
      .orderBy("m.mirrorId")
      .execute();
    return rows.map((r) => ({ parentPositionId: Number(r.parentPositionId), mirrorId: Number(r.mirrorId) }));
  },
});
