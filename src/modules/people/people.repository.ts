import { type Insertable, type Selectable, sql } from "kysely";
import type { Executor } from "../../infra/db/executor.js";
import type {
  AccountSnapshotsTable,
  DemoAccountsTable,
  DemoPositionsTable,
  PeopleStatsTable,
  UsersTable,
} from "../../infra/db/schema.js";

/** A user as people reads them (the users table, owned by identity). */
export type PersonRow = Selectable<UsersTable>;

/** An open demo position as people reads it (the positions table, owned by trading). */
export type LivePositionRow = Omit<Selectable<DemoPositionsTable>, "amountCents" | "initialAmountCents"> & {
  amountCents: number;
  initialAmountCents: number;
};

/** A snapshot as the use cases see it: money columns are numbers (PostgreSQL bigint arrives as text). */
export interface SnapshotRow {
  userId: string;
  day: string;
  equityCents: number;
  cashCents: number;
  investedCents: number;
  depositsCents: number;
  dailyReturn: number;
  unitValue: number;
  riskScore: number;
  holdings: string;
  takenAt: string;
}

const snapshot = (r: Selectable<AccountSnapshotsTable>): SnapshotRow => ({
  ...r,
  equityCents: Number(r.equityCents),
  cashCents: Number(r.cashCents),
  investedCents: Number(r.investedCents),
  depositsCents: Number(r.depositsCents),
  dailyReturn: Number(r.dailyReturn),
  unitValue: Number(r.unitValue),
  riskScore: Number(r.riskScore),
});

/** A new token for search's rows (decision 0181): any value other than the last. */
export const newStatsToken = () => 1 + Math.floor(Math.random() * 2 ** 48);

/** Search's rows changed: answers kept under the old token are no longer used (decision 0181). */
export async function statsChanged(db: Executor): Promise<void> {
  const token = newStatsToken();
  // An upsert: a sandbox reset empties every table, this one's row included.
  await db
    .insertInto("peopleStatsVersion")
    .values({ id: 1, token })
    .onConflict((oc) => oc.column("id").doUpdateSet({ token }))
    .execute();
}

/**
 * Notes a change of the user's search columns for a pass that is building the day's stats apart
 * (0180), and changes search's token (0181).
 */
async function touched(db: Executor, userId: string): Promise<void> {
  await statsChanged(db);
  await db
    .insertInto("peopleStatsTouched")
    .values({ userId })
    .onConflict((oc) => oc.column("userId").doNothing())
    .execute();
}

/** An account to snapshot: its cash and the money put in so far. */
export interface AccountToSnapshot {
  userId: string;
  cashCents: number;
  depositsCents: number;
}

/** Rows per insert: under SQLite's bound-parameter limit whatever the column count. */
const CHUNK = 200;
/** Stats rows per insert (18 columns: under SQLite's 32,766 bound parameters). */
const STATS_CHUNK = 500;
/** The figures the daily pass rewrites in `people_stats`. */
const STAT_FIGURES = [
  "gain",
  "dailyGain",
  "weekGain",
  "riskScore",
  "maxDailyRisk",
  "maxMonthlyRisk",
  "profitableMonthsPct",
] as const;

export const peopleRepository = (db: Executor) => ({
  async userByUsername(username: string): Promise<PersonRow | undefined> {
    return db.selectFrom("users").selectAll().where("usernameLower", "=", username.toLowerCase()).executeTakeFirst();
  },

  async usersByUsernames(usernames: readonly string[]): Promise<PersonRow[]> {
    if (usernames.length === 0) return [];
    return db
      .selectFrom("users")
      .selectAll()
      .where(
        "usernameLower",
        "in",
        usernames.map((u) => u.toLowerCase()),
      )
      .execute();
  },

  async usersByGcids(gcids: readonly number[]): Promise<PersonRow[]> {
    if (gcids.length === 0) return [];
    return db.selectFrom("users").selectAll().where("gcid", "in", gcids).execute();
  },

  async userById(id: string): Promise<PersonRow | undefined> {
    return db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  },

  /** A demo account's cash, or undefined when the user has none. */
  async cashOf(userId: string): Promise<number | undefined> {
    const row = await db.selectFrom("demoAccounts").select("cashCents").where("userId", "=", userId).executeTakeFirst();
    return row ? Number(row.cashCents) : undefined;
  },

  /** Opens a demo account as a replayed history left it (seeded traders, decision 0142). */
  async openReplayedAccount(row: Selectable<DemoAccountsTable>): Promise<void> {
    await db
      .insertInto("demoAccounts")
      .values(row)
      .onConflict((oc) => oc.column("userId").doNothing())
      .execute();
  },

  async livePositionsOf(userId: string): Promise<LivePositionRow[]> {
    const rows = await db
      .selectFrom("demoPositions")
      .selectAll()
      .where("userId", "=", userId)
      .where("status", "=", "open")
      .orderBy("positionId")
      .execute();
    return rows.map((r) => ({
      ...r,
      amountCents: Number(r.amountCents),
      initialAmountCents: Number(r.initialAmountCents),
    }));
  },

  /** Demo accounts after `afterUserId` in user id order, `limit` at most (keyset pages). */
  async accountsAfter(afterUserId: string, limit: number): Promise<AccountToSnapshot[]> {
    const rows = await db
      .selectFrom("demoAccounts")
      .select(["userId", "cashCents", "startingCents"])
      .where("userId", ">", afterUserId)
      .orderBy("userId")
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      userId: r.userId,
      cashCents: Number(r.cashCents),
      depositsCents: Number(r.startingCents),
    }));
  },

  async openPositionsOf(userIds: readonly string[]) {
    if (userIds.length === 0) return [];
    const rows = await db
      .selectFrom("demoPositions")
      .select(["userId", "instrumentId", "isBuy", "leverage", "amountCents", "units", "openRate"])
      .where("userId", "in", userIds)
      .where("status", "=", "open")
      .execute();
    return rows.map((r) => ({ ...r, amountCents: Number(r.amountCents) }));
  },

  /** Each user's last snapshot before `day` (at most one per user). */
  async lastSnapshotsBefore(userIds: readonly string[], day: string): Promise<Map<string, SnapshotRow>> {
    if (userIds.length === 0) return new Map();
    const rows = await db
      .selectFrom("accountSnapshots as s")
      .selectAll("s")
      .where("s.userId", "in", userIds)
      .where((eb) =>
        eb(
          "s.day",
          "=",
          eb
            .selectFrom("accountSnapshots as p")
            .select((p) => p.fn.max("p.day").as("d"))
            .whereRef("p.userId", "=", "s.userId")
            .where("p.day", "<", day),
        ),
      )
      .execute();
    return new Map(rows.map((r) => [r.userId, snapshot(r)]));
  },

  /** The days (return and risk score only) of `userIds` from `fromDay` on, ascending per user. */
  async returnsSince(userIds: readonly string[], fromDay: string) {
    if (userIds.length === 0) return [];
    const rows = await db
      .selectFrom("accountSnapshots")
      .select(["userId", "day", "dailyReturn", "riskScore"])
      .where("userId", "in", userIds)
      .where("day", ">=", fromDay)
      .orderBy("userId")
      .orderBy("day")
      .execute();
    return rows.map((r) => ({ ...r, dailyReturn: Number(r.dailyReturn), riskScore: Number(r.riskScore) }));
  },

  async upsertSnapshots(rows: readonly Insertable<AccountSnapshotsTable>[]): Promise<void> {
    for (let i = 0; i < rows.length; i += CHUNK) {
      await snapshotsUpsert(db, rows.slice(i, i + CHUNK)).execute();
    }
  },

  /**
   * Writes each account's figures per period, each with the user's copiers as copy trading last told
   * them (decision 0164). An existing row gets only its figures, and only when one changed: the
   * user's columns are written once (they never change, or change through `setListing`), so SQLite
   * leaves the indexes of unchanged columns alone (decision 0165).
   */
  async upsertStats(rows: readonly Insertable<PeopleStatsTable>[]): Promise<void> {
    for (let i = 0; i < rows.length; i += STATS_CHUNK) {
      await db
        .insertInto("peopleStats")
        .values(
          rows.slice(i, i + STATS_CHUNK).map((row) => ({
            ...row,
            copiers: sql<number>`coalesce((select copiers from people_copiers where user_id = ${row.userId}), 0)`,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(["period", "userId"])
            .doUpdateSet((eb) => ({
              gain: eb.ref("excluded.gain"),
              dailyGain: eb.ref("excluded.dailyGain"),
              weekGain: eb.ref("excluded.weekGain"),
              riskScore: eb.ref("excluded.riskScore"),
              maxDailyRisk: eb.ref("excluded.maxDailyRisk"),
              maxMonthlyRisk: eb.ref("excluded.maxMonthlyRisk"),
              profitableMonthsPct: eb.ref("excluded.profitableMonthsPct"),
              copiers: eb.ref("excluded.copiers"),
              updatedAt: eb.ref("excluded.updatedAt"),
            }))
            .where((eb) =>
              eb.or(
                [...STAT_FIGURES, "copiers" as const].map((column) =>
                  eb(`peopleStats.${column}`, "<>", eb.ref(`excluded.${column}`)),
                ),
              ),
            ),
        )
        .execute();
    }
    await statsChanged(db);
  },

  /** A user's privacy columns on their search rows (people_stats), after a privacy change. */
  async setListing(userId: string, listed: boolean, optOut: boolean): Promise<void> {
    await db
      .updateTable("peopleStats")
      .set({ listed: listed ? 1 : 0, optOut: optOut ? 1 : 0 })
      .where("userId", "=", userId)
      .execute();
    await touched(db, userId);
  },

  async replaceHoldings(userIds: readonly string[], rows: { userId: string; instrumentId: number; pct: number }[]) {
    if (userIds.length === 0) return;
    await db.deleteFrom("peopleHoldings").where("userId", "in", userIds).execute();
    for (let i = 0; i < rows.length; i += CHUNK) {
      await db
        .insertInto("peopleHoldings")
        .values(rows.slice(i, i + CHUNK))
        .execute();
    }
    await statsChanged(db);
  },

  /** One user's snapshots within [from, to], ascending. */
  async snapshotsOf(userId: string, from: string, to: string): Promise<SnapshotRow[]> {
    const rows = await db
      .selectFrom("accountSnapshots")
      .selectAll()
      .where("userId", "=", userId)
      .where("day", ">=", from)
      .where("day", "<=", to)
      .orderBy("day")
      .execute();
    return rows.map(snapshot);
  },

  async latestSnapshotOf(userId: string): Promise<SnapshotRow | undefined> {
    const row = await db
      .selectFrom("accountSnapshots")
      .selectAll()
      .where("userId", "=", userId)
      .orderBy("day", "desc")
      .limit(1)
      .executeTakeFirst();
    return row ? snapshot(row) : undefined;
  },

  /** The user's copiers now: kept, and written into every period of their stats. */
  async setCopiers(userId: string, copiers: number, at: string): Promise<void> {
    await db
      .insertInto("peopleCopiers")
      .values({ userId, copiers, updatedAt: at })
      .onConflict((oc) => oc.column("userId").doUpdateSet({ copiers, updatedAt: at }))
      .execute();
    await db.updateTable("peopleStats").set({ copiers }).where("userId", "=", userId).execute();
    await touched(db, userId);
  },

  /** Forgets the users touched before a pass begins (decision 0180). */
  async clearTouched(): Promise<void> {
    await db.deleteFrom("peopleStatsTouched").execute();
  },

  async statsOf(userId: string, period: string) {
    return db
      .selectFrom("peopleStats")
      .selectAll()
      .where("userId", "=", userId)
      .where("period", "=", period)
      .executeTakeFirst();
  },

  async settingsOf(userIds: readonly string[]) {
    if (userIds.length === 0) return new Map<string, { portfolioOptOut: boolean; copyBlocked: boolean }>();
    const rows = await db.selectFrom("peopleSettings").selectAll().where("userId", "in", userIds).execute();
    return new Map(
      rows.map((r) => [r.userId, { portfolioOptOut: r.portfolioOptOut === 1, copyBlocked: r.copyBlocked === 1 }]),
    );
  },

  async saveSettings(userId: string, portfolioOptOut: boolean, copyBlocked: boolean, at: string): Promise<void> {
    await db
      .insertInto("peopleSettings")
      .values({ userId, portfolioOptOut: portfolioOptOut ? 1 : 0, copyBlocked: copyBlocked ? 1 : 0, updatedAt: at })
      .onConflict((oc) =>
        oc.column("userId").doUpdateSet({
          portfolioOptOut: portfolioOptOut ? 1 : 0,
          copyBlocked: copyBlocked ? 1 : 0,
          updatedAt: at,
        }),
      )
      .execute();
  },

  /** Whether either user blocks the other. */
  async blockedEitherWay(a: string, b: string): Promise<boolean> {
    const row = await db
      .selectFrom("userBlocks")
      .select("blockerId")
      .where((eb) =>
        eb.or([
          eb.and([eb("blockerId", "=", a), eb("blockedId", "=", b)]),
          eb.and([eb("blockerId", "=", b), eb("blockedId", "=", a)]),
        ]),
      )
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Closed trades of a user within [fromIso, toIso), for trade statistics. */
  async tradesBetween(userId: string, fromIso: string, toIso: string) {
    const rows = await db
      .selectFrom("demoTrades")
      .selectAll()
      .where("userId", "=", userId)
      .where("closeDateTime", ">=", fromIso)
      .where("closeDateTime", "<", toIso)
      .execute();
    return rows.map((r) => ({
      ...r,
      netProfitCents: Number(r.netProfitCents),
      investmentCents: Number(r.investmentCents),
    }));
  },
});

export type PeopleRepository = ReturnType<typeof peopleRepository>;

/** Sets users.is_private (identity's column; the privacy choice is made here, decision 0141). */
export async function setProfilePrivate(db: Executor, userId: string, isPrivate: boolean): Promise<void> {
  await db
    .updateTable("users")
    .set({ isPrivate: isPrivate ? 1 : 0 })
    .where("id", "=", userId)
    .execute();
}

/** The day's snapshots of accounts, inserted or replacing that day's (the daily pass, both of its paths). */
export function snapshotsUpsert(db: Executor, rows: readonly Insertable<AccountSnapshotsTable>[]) {
  return db
    .insertInto("accountSnapshots")
    .values(rows)
    .onConflict((oc) =>
      oc.columns(["userId", "day"]).doUpdateSet((eb) => ({
        equityCents: eb.ref("excluded.equityCents"),
        cashCents: eb.ref("excluded.cashCents"),
        investedCents: eb.ref("excluded.investedCents"),
        depositsCents: eb.ref("excluded.depositsCents"),
        dailyReturn: eb.ref("excluded.dailyReturn"),
        unitValue: eb.ref("excluded.unitValue"),
        riskScore: eb.ref("excluded.riskScore"),
        holdings: eb.ref("excluded.holdings"),
        takenAt: eb.ref("excluded.takenAt"),
      })),
    );
}
