import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Deps } from "../../src/modules/context.js";
import { takeSnapshots } from "../../src/modules/people/history/take-snapshots.js";
import { engines, type Harness, startHarness, type TestUser } from "../support/harness.js";

const OPEN = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
const SEARCH = "/api/v1/user-info/people/search?period=OneYearAgo&pageSize=100";
const atEndOf = (day: string): Deps["clock"] => ({ now: () => new Date(`${day}T22:00:00.000Z`) });

/** Decisions 0180 (the pass builds the day's rows apart and swaps them in) and 0181 (search's kept answers). */
describe.each(engines())("the snapshot pass and search's kept answers on %s", (engine) => {
  let h: Harness;
  let traders: TestUser[];
  let viewer: TestUser;

  const get = (u: TestUser, url: string) =>
    h.app.inject({ method: "GET", url, headers: { ...u.headers, "x-request-id": randomUUID() } });
  const put = (u: TestUser, url: string, payload: object) =>
    h.app.inject({ method: "PUT", url, headers: { ...u.headers, "x-request-id": randomUUID() }, payload });
  const names = async (u: TestUser, url = SEARCH) => {
    const res = await get(u, url);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { totalItems: number; items: { userName: string }[] };
    return { total: body.totalItems, names: body.items.map((i) => i.userName) };
  };

  beforeAll(async () => {
    h = await startHarness(engine, { env: { MARKET_TICK_MS: "0" } });
    traders = [];
    for (let i = 0; i < 4; i++) {
      const t = await h.user(["user-info:read", "user-info:write", "trade.demo:write"]);
      const open = await h.app.inject({
        method: "POST",
        url: OPEN,
        headers: { ...t.headers, "x-request-id": randomUUID() },
        payload: { InstrumentID: 1001, IsBuy: true, Leverage: 1, Amount: 1_000 + i * 100 },
      });
      expect(open.statusCode, open.body).toBe(200);
      traders.push(t);
    }
    viewer = await h.user(["user-info:read"]);
    await takeSnapshots({ ...h.deps, clock: atEndOf("2026-11-02") });
  });
  afterAll(async () => h.close());

  it("a privacy change made while a pass runs holds once the pass ends, whatever batch read the user", async () => {
    const before = await names(viewer);
    expect(before.names).toEqual(expect.arrayContaining(traders.map((t) => t.user.username)));
    let changed = false;
    // One account per batch; every account is read (and its rows computed) before the change.
    const report = await takeSnapshots(
      { ...h.deps, clock: atEndOf("2026-11-03") },
      async (done) => {
        if (changed || done < traders.length) return;
        changed = true;
        for (const t of [traders[0]!, traders[1]!]) {
          const res = await put(t, "/api/v1/user-info/privacy", { isPrivate: true });
          expect(res.statusCode, res.body).toBe(200);
        }
      },
      1,
    );
    expect(changed).toBe(true);
    expect(report.accounts).toBe(traders.length);
    const after = await names(viewer);
    expect(after.names).not.toContain(traders[0]!.user.username);
    expect(after.names).not.toContain(traders[1]!.user.username);
    expect(after.names).toContain(traders[2]!.user.username);
    expect(after.total).toBe(before.total - 2);
    // The owner still finds their own private row.
    expect((await names(traders[0]!)).names).toContain(traders[0]!.user.username);
    for (const t of [traders[0]!, traders[1]!]) await put(t, "/api/v1/user-info/privacy", { isPrivate: false });
    expect(await names(viewer)).toEqual(before);
  });

  it("a kept answer is reused only while search's rows are unchanged: privacy, a pass, blocks", async () => {
    const first = await names(viewer);
    expect(await names(viewer)).toEqual(first);
    expect(h.deps.peopleSearches.size).toBeGreaterThan(0);

    // A privacy change: the same query no longer lists the user, and its total says so.
    await put(traders[3]!, "/api/v1/user-info/privacy", { isPrivate: true });
    const hidden = await names(viewer);
    expect(hidden.names).not.toContain(traders[3]!.user.username);
    expect(hidden.total).toBe(first.total - 1);
    await put(traders[3]!, "/api/v1/user-info/privacy", { isPrivate: false });
    expect(await names(viewer)).toEqual(first);

    // A pass: the figures are the new day's.
    const gains = async () =>
      ((await get(viewer, SEARCH)).json().items as { userName: string; dailyGain: number }[]).find(
        (i) => i.userName === traders[2]!.user.username,
      );
    const dayBefore = await gains();
    await h.deps.market.tick();
    await takeSnapshots({ ...h.deps, clock: atEndOf("2026-11-04") });
    const direct = await h.deps.db.kysely
      .selectFrom("peopleStats")
      .select("dailyGain")
      .where("userId", "=", traders[2]!.user.id)
      .where("period", "=", "OneYearAgo")
      .executeTakeFirstOrThrow();
    const dayAfter = await gains();
    expect(dayAfter!.dailyGain).toBe(Number(direct.dailyGain));
    expect(dayBefore).toBeDefined();

    // A caller across a block sees their own answer, not the kept one.
    const blocker = await h.user(["user-info:read", "feed:write"]);
    const block = await h.app.inject({
      method: "POST",
      url: `/api/v1/users/${traders[2]!.user.gcid}/blocks`,
      headers: { ...blocker.headers, "x-request-id": randomUUID() },
    });
    expect(block.statusCode, block.body).toBe(204);
    const seen = await names(blocker);
    expect(seen.names).not.toContain(traders[2]!.user.username);
    expect(seen.total).toBe((await names(viewer)).total - 1);
  });
});
