import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Deps } from "../../src/modules/context.js";
import { takeSnapshots } from "../../src/modules/people/history/take-snapshots.js";
import { peopleRepository } from "../../src/modules/people/people.repository.js";
import { type Harness, startHarness, type TestUser } from "../support/harness.js";

const OPEN = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
const atEndOf = (day: string): Deps["clock"] => ({ now: () => new Date(`${day}T22:00:00.000Z`) });

/**
 * Decision 0195: on a SQLite file the pass updates the table the last swap replaced rather than
 * building one from nothing. Its rows and indexes must be those a pass building anew writes.
 */
describe("the SQLite pass that updates the previous pass's table", () => {
  let h: Harness;
  const traders: TestUser[] = [];

  const open = async (t: TestUser, amount: number) => {
    const res = await h.app.inject({
      method: "POST",
      url: OPEN,
      headers: { ...t.headers, "x-request-id": randomUUID() },
      payload: { InstrumentID: 1001, IsBuy: true, Leverage: 1, Amount: amount },
    });
    expect(res.statusCode, res.body).toBe(200);
  };
  const trader = async (amount: number) => {
    const t = await h.user(["user-info:read", "user-info:write", "trade.demo:write"]);
    await open(t, amount);
    traders.push(t);
    return t;
  };
  const rows = async () =>
    (await sql<Record<string, unknown>>`select * from people_stats order by period, user_id`.execute(h.deps.db.kysely))
      .rows;
  /** The live table's indexes, without their names' alternating suffix. */
  const indexes = async () =>
    (
      await sql<{ sql: string }>`select sql from sqlite_master
        where type = 'index' and tbl_name = 'people_stats' and sql is not null`.execute(h.deps.db.kysely)
    ).rows
      .map((r) => r.sql.replaceAll('"', "").replace(/^(create\s+index\s+)(\w+?)(__[ab])?(\s)/i, "$1$2$4"))
      .sort();

  beforeAll(async () => {
    h = await startHarness("sqlite", { env: { MARKET_TICK_MS: "0" } });
    // Enough accounts that the changes below stay within the tenth by which the two tables may differ.
    for (let i = 0; i < 24; i++) await trader(1_000 + i * 10);
  });
  afterAll(async () => h.close());

  it("writes the rows and indexes a pass building the table anew writes, whatever changed in between", async () => {
    const definitions = await indexes();
    const first = await takeSnapshots({ ...h.deps, clock: atEndOf("2026-11-01") });
    expect(first.writer?.reused).toBe(false);
    // The kept table is then the migrations' empty one: built anew again.
    const second = await takeSnapshots({ ...h.deps, clock: atEndOf("2026-11-02") });
    expect(second.writer?.reused).toBe(false);
    await h.deps.market.tick();
    const third = await takeSnapshots({ ...h.deps, clock: atEndOf("2026-11-03") });
    expect(third.writer?.reused).toBe(true);
    expect(await indexes()).toEqual(definitions);

    // Between passes: a privacy change and a change of copiers (written to the live table only), a
    // new account, rows of the kept table that no pass would write, and a search column gone stale.
    const res = await h.app.inject({
      method: "PUT",
      url: "/api/v1/user-info/privacy",
      headers: { ...traders[0]!.headers, "x-request-id": randomUUID() },
      payload: { isPrivate: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    await peopleRepository(h.deps.db.kysely).setCopiers(traders[1]!.user.id, 7, new Date().toISOString());
    await trader(5_000);
    const noAccount = await h.user(["user-info:read"]);
    const db = h.deps.db.kysely;
    await sql`insert into people_stats_prev select * from people_stats_prev where user_id = ${traders[2]!.user.id}
      on conflict do nothing`.execute(db);
    await sql`insert into people_stats_prev (user_id, period, gain, daily_gain, week_gain, risk_score, max_daily_risk,
        max_monthly_risk, profitable_months_pct, updated_at)
      select ${noAccount.user.id}, period, 1, 1, 1, 1, 1, 1, 1, updated_at from people_stats_prev
      where user_id = ${traders[2]!.user.id}`.execute(db);
    await sql`update people_stats_prev set period = 'NoSuchPeriod' where user_id = ${traders[2]!.user.id}
      and period = 'CurrMonth'`.execute(db);
    await sql`update people_stats_prev set username_lower = 'stale', registered_at = '' where user_id = ${traders[1]!.user.id}`.execute(
      db,
    );
    // An account the last pass did not write (its rows are gone from the live table) that is back:
    // its kept rows, stale, are not used.
    await sql`delete from people_stats where user_id = ${traders[3]!.user.id}`.execute(db);
    await sql`update people_stats_prev set username_lower = 'stale', copiers = 3 where user_id = ${traders[3]!.user.id}`.execute(
      db,
    );
    await h.deps.market.tick();

    const day = atEndOf("2026-11-04");
    const kept = await takeSnapshots({ ...h.deps, clock: day });
    expect(kept.writer?.reused).toBe(true);
    const updated = await rows();
    expect(await indexes()).toEqual(definitions);

    // The same day's pass again, built from nothing: no kept table.
    await sql`drop table people_stats_prev`.execute(db);
    const anew = await takeSnapshots({ ...h.deps, clock: day });
    expect(anew.writer?.reused).toBe(false);
    const built = await rows();
    expect(built.length).toBe(traders.length * 10);
    expect(updated).toEqual(built);
    expect(built.filter((r) => r.user_id === traders[0]!.user.id).every((r) => r.listed === 0)).toBe(true);
    expect(built.filter((r) => r.user_id === traders[1]!.user.id).every((r) => r.copiers === 7)).toBe(true);
    expect(await indexes()).toEqual(definitions);
  });
});
