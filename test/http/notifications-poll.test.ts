import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notify } from "../../src/modules/notifications/notify.js";
import { engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";

const URL = "/api/v1/notifications/messages";

/** Counts every row UPDATE on `notifications` in the real store (a trigger into a counter table). */
const COUNTER_DDL = {
  sqlite: [
    "create table poll_test_updates (n integer not null)",
    "insert into poll_test_updates values (0)",
    "create trigger poll_test_count after update on notifications begin update poll_test_updates set n = n + 1; end",
  ],
  postgres: [
    "create table poll_test_updates (n integer not null)",
    "insert into poll_test_updates values (0)",
    "create function poll_test_count() returns trigger language plpgsql as $$ begin update poll_test_updates set n = n + 1; return null; end $$",
    "create trigger poll_test_count after update on notifications for each row execute function poll_test_count()",
  ],
};

describe.each(engines())("a notifications poll on %s (decision 0171)", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
    for (const statement of COUNTER_DDL[engine]) await sql.raw(statement).execute(h.deps.db.kysely);
  });
  afterAll(async () => h.close());

  const poll = async (u: TestUser) => {
    const res = await h.app.inject({ method: "GET", url: URL, headers: { ...u.headers, "x-request-id": rid() } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    return res.body;
  };
  const statuses = (body: string) => (JSON.parse(body).messages as { readStatus: string }[]).map((m) => m.readStatus);
  const notSeen = (body: string) => JSON.parse(body).meta.notSeen as number;
  const updates = async () =>
    Number((await sql<{ n: number }>`select n from poll_test_updates`.execute(h.deps.db.kysely)).rows[0]?.n);
  /** Renames the table away: a poll that reads or writes it now fails. */
  const hideTable = (hidden: boolean) =>
    sql
      .raw(
        hidden
          ? "alter table notifications rename to notifications_hidden"
          : "alter table notifications_hidden rename to notifications",
      )
      .execute(h.deps.db.kysely);

  it("a poll that finds nothing new neither reads nor writes the store; New→Seen is one write per new item", async () => {
    const u = await h.user(["notifications:read", "notifications:write"]);
    const before = await updates();

    // The welcome notification is New: this read moves it to Seen (one row updated).
    const first = await poll(u);
    expect(notSeen(first)).toBe(1);
    expect(statuses(first)).toEqual(["New"]);
    expect(await updates()).toBe(before + 1);

    // Nothing new: read once from the store, then kept.
    const second = await poll(u);
    expect(notSeen(second)).toBe(0);
    expect(statuses(second)).toEqual(["Seen"]);

    // With the table gone, polls still answer, byte for byte: no read and no write was made.
    await hideTable(true);
    try {
      for (let i = 0; i < 3; i++) expect(await poll(u)).toBe(second);
    } finally {
      await hideTable(false);
    }
    expect(await updates()).toBe(before + 1);

    // Two new items: the next poll shows them New and moves exactly those two rows, once.
    await notify(h.deps, { userId: u.user.id, kind: "announcement", message: "one", actionLink: "/docs" });
    await notify(h.deps, { userId: u.user.id, kind: "announcement", message: "two", actionLink: "/docs" });
    const third = await poll(u);
    expect(notSeen(third)).toBe(2);
    expect(statuses(third)).toEqual(["New", "New", "Seen"]);
    expect(await updates()).toBe(before + 3);
    for (let i = 0; i < 4; i++) {
      const again = await poll(u);
      expect(notSeen(again)).toBe(0);
      expect(statuses(again)).toEqual(["Seen", "Seen", "Seen"]);
    }
    expect(await updates()).toBe(before + 3);

    // PATCH moves all three to Read: the kept answer is dropped, the next poll says Read.
    const patch = await h.app.inject({ method: "PATCH", url: URL, headers: { ...u.headers, "x-request-id": rid() } });
    expect(patch.statusCode).toBe(204);
    expect(await updates()).toBe(before + 6);
    expect(statuses(await poll(u))).toEqual(["Read", "Read", "Read"]);
    expect(await updates()).toBe(before + 6);
  });

  it("a kept answer is the caller's own: another user's poll and changes leave it alone", async () => {
    const a = await h.user(["notifications:read"]);
    const b = await h.user(["notifications:read"]);
    await poll(a);
    await poll(b);
    const keptA = await poll(a);
    const keptB = await poll(b);
    expect(keptA).not.toBe(keptB);
    await notify(h.deps, { userId: b.user.id, kind: "announcement", message: "for b", actionLink: "/docs" });
    expect(await poll(a)).toBe(keptA);
    const nowB = await poll(b);
    expect(notSeen(nowB)).toBe(1);
    expect(JSON.parse(nowB).messages[0].message).toBe("for b");
  });

  it("a caller without notifications:read is refused even when an answer is kept for the user", async () => {
    const u = await h.user(["notifications:read"]);
    await poll(u);
    await poll(u);
    const other = await h.bearer(["user-info:read"], { user: u.user });
    const res = await h.app.inject({ method: "GET", url: URL, headers: { ...other.headers, "x-request-id": rid() } });
    expect(res.statusCode).toBe(403);
  });
});
