import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../support/harness.js";
import { type Answer, ORDER, send } from "./load.js";

/**
 * A full disk, simulated with `PRAGMA max_page_count` on the app's own connection: the file may
 * not grow past the pages it has (docs/decisions/0107).
 */
describe("SQLite disk full", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("sqlite", { env: { RATE_LIMITS_ENABLED: "false" } });
  });
  afterAll(async () => h?.close());

  /** A pragma's one value (the app's connection renames columns to camelCase: take the value). */
  const pragma = async (text: string) => {
    const rows = (await sql.raw(`pragma ${text}`).execute(h.deps.db.kysely)).rows as Record<string, unknown>[];
    return rows[0] === undefined ? undefined : Object.values(rows[0])[0];
  };
  const pages = async () => Number(await pragma("page_count"));

  it("writes answer 507 in the one body and change nothing, reads work, the file stays whole, and writes resume with space", async () => {
    const u = await h.user(["trade.demo:write"]);
    expect((await send(h.app, u.headers, "order")).status).toBe(200);
    const normal = Number(await pragma("max_page_count"));
    await pragma(`max_page_count = ${await pages()}`);
    let refused: Answer | undefined;
    let made = 1;
    try {
      // Free pages inside the file take a few orders; then the file has to grow and cannot.
      for (let i = 0; i < 200 && !refused; i++) {
        const a = await send(h.app, u.headers, "order");
        if (a.status === 200) made += 1;
        else refused = a;
      }
      expect(refused?.status, JSON.stringify(refused?.body)).toBe(507);
      expect(refused!.body).toEqual({
        errorCode: "InsufficientStorage",
        errorMessage: expect.stringMatching(/no space left/),
        requestId: refused!.requestId,
      });
      expect(refused!.headers["x-request-id"]).toBe(refused!.requestId);

      // Reads keep working, and show no trace of the refused order.
      const read = await send(h.app, u.headers, "read");
      expect(read.status).toBe(200);
      expect(read.body.clientPortfolio.positions).toHaveLength(made);
      expect(read.body.clientPortfolio.credit).toBeCloseTo(100_000 - ORDER.Amount * made, 2);
      // Still full: the same order is refused again, not half-remembered.
      expect((await send(h.app, u.headers, "order", refused!.requestId)).status).toBe(507);
      expect(await pragma("integrity_check")).toBe("ok");
    } finally {
      await pragma(`max_page_count = ${normal}`);
    }
    // Space again: the refused order goes through on retry (once), and new ones too.
    const retried = await send(h.app, u.headers, "order", refused!.requestId);
    expect(retried.status).toBe(200);
    expect((await send(h.app, u.headers, "order")).status).toBe(200);
    const after = (await send(h.app, u.headers, "read")).body.clientPortfolio;
    expect(after.positions).toHaveLength(made + 2);
    expect(after.credit).toBeCloseTo(100_000 - ORDER.Amount * (made + 2), 2);
    expect(await pragma("integrity_check")).toBe("ok");
  }, 30_000);
});

describe("SQLITE_SYNCHRONOUS", () => {
  it.each([
    ["unset", 1, undefined],
    ["normal", 1, "normal"],
    ["full", 2, "full"],
  ])("%s opens the file with synchronous = %i (1 NORMAL, 2 FULL)", async (_name, level, value) => {
    const h = await startHarness("sqlite", value ? { env: { SQLITE_SYNCHRONOUS: value } } : {});
    try {
      const rows = (await sql.raw("pragma synchronous").execute(h.deps.db.kysely)).rows as Record<string, unknown>[];
      expect(Object.values(rows[0]!)[0]).toBe(level);
    } finally {
      await h.close();
    }
  });
});
