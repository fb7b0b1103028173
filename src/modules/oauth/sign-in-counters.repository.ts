import type { Selectable } from "kysely";
import type { Executor } from "../../infra/db/executor.js";
import type { SignInCountersTable } from "../../infra/db/schema.js";

export type SignInCounterRow = Selectable<SignInCountersTable>;

export interface CounterValues {
  failures: number;
  lockedUntil: string;
  expiresAt: string;
}

/** The failed sign-in counters (migration 010). Writes are compare-and-set, so instances can race. */
export const signInCountersRepository = (db: Executor) => ({
  async find(key: string): Promise<SignInCounterRow | undefined> {
    return db.selectFrom("signInCounters").selectAll().where("key", "=", key).executeTakeFirst();
  },

  /** Starts a counter; false when another attempt started it first. */
  async insert(key: string, values: CounterValues): Promise<boolean> {
    const inserted = await db
      .insertInto("signInCounters")
      .values({ key, ...values, refusals: 0 })
      .onConflict((oc) => oc.column("key").doNothing())
      .returning("key")
      .executeTakeFirst();
    return inserted !== undefined;
  },

  /** Moves a counter on from the state `seen`; false when another attempt moved it first. */
  async replace(seen: SignInCounterRow, values: CounterValues): Promise<boolean> {
    const result = await db
      .updateTable("signInCounters")
      .set({ ...values, refusals: 0 })
      .where("key", "=", seen.key)
      .where("failures", "=", seen.failures)
      .where("lockedUntil", "=", seen.lockedUntil)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /** Counts an attempt refused during the delay; the count after it. */
  async noteRefusal(key: string): Promise<number> {
    const row = await db
      .updateTable("signInCounters")
      .set((eb) => ({ refusals: eb("refusals", "+", 1) }))
      .where("key", "=", key)
      .returning("refusals")
      .executeTakeFirst();
    return row?.refusals ?? 0;
  },

  async delete(key: string): Promise<void> {
    await db.deleteFrom("signInCounters").where("key", "=", key).execute();
  },

  async isKnownAddress(key: string, at: string): Promise<boolean> {
    const row = await db
      .selectFrom("signInKnownAddresses")
      .select("key")
      .where("key", "=", key)
      .where("expiresAt", ">", at)
      .executeTakeFirst();
    return row !== undefined;
  },

  async rememberAddress(key: string, expiresAt: string): Promise<void> {
    await db
      .insertInto("signInKnownAddresses")
      .values({ key, expiresAt })
      .onConflict((oc) => oc.column("key").doUpdateSet({ expiresAt }))
      .execute();
  },

  /** Counters and known addresses expired at `at`. */
  async deleteExpired(at: string): Promise<number> {
    const counters = await db.deleteFrom("signInCounters").where("expiresAt", "<=", at).executeTakeFirst();
    const addresses = await db.deleteFrom("signInKnownAddresses").where("expiresAt", "<=", at).executeTakeFirst();
    return Number(counters.numDeletedRows) + Number(addresses.numDeletedRows);
  },
});
