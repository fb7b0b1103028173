import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { systemActor } from "../../src/core/actor.js";
import { withActor } from "../../src/modules/context.js";
import { createUser } from "../../src/modules/identity/create-user.js";
import { createKeyPair } from "../../src/modules/identity/key-pairs.js";
import { currentQuotes } from "../../src/modules/market/quotes.js";
import { ensureInstrumentCatalog } from "../../src/modules/market/seed-catalog.js";
import { ORDER_TYPE_CLOSE } from "../../src/modules/trading/demo-account.js";
import { closeDeps, createDeps } from "../../src/runtime.js";
import { sleep } from "./load.js";

const BIN = join(import.meta.dirname, "../../bin/social-trading-api.js");
const BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
/** Positions opened, each with a stop-loss and a take-profit the fast market will cross. */
const POSITIONS = 120;
const INSTRUMENTS = [1001, 100000];

/** `serve` as a user runs it (the built dist, a SQLite file), with `env` on top. */
function spawnServe(db: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [BIN, "serve", "--port", "0", "--database", db, "--json"], {
    env: { ...process.env, LOG_LEVEL: "warn", SEED: "never", DEMO_BALANCE: "10000000", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once("exit", resolve),
  );

/**
 * `kill -9` in the middle of a burst of stop-loss and take-profit closes, then a restart on the
 * same file (docs/decisions/0107): no position closed twice, none whose level was crossed left
 * open, and the cash is exactly what the trades say.
 */
describe("kill -9 during a trigger burst", () => {
  const dir = mkdtempSync(join(tmpdir(), "sta-kill-"));
  const db = join(dir, "kill.db");
  const running: ChildProcess[] = [];
  afterAll(() => {
    for (const child of running) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("closes every crossed position exactly once across the crash, with balances matching the trades", async () => {
    expect(
      existsSync(join(import.meta.dirname, "../../dist/main.js")),
      "build first: npx tsc -b tsconfig.build.json",
    ).toBe(true);
    // 1. In this process, on a still market (no timer: prices stay at their seeds), through the
    //    app as serve builds it: open the positions, levels 0.2% to 2.6% either side of the
    //    price, so the fast market crosses them over a few seconds.
    const config = loadConfig(
      { LOG_LEVEL: "silent", RATE_LIMITS_ENABLED: "false", MARKET_TICK_MS: "0", DEMO_BALANCE: "10000000" },
      { database: db },
    );
    const deps = await createDeps(config);
    const opened: number[] = [];
    let userId = "";
    try {
      await ensureInstrumentCatalog(deps);
      const app = await buildApp(config, deps);
      const operator = withActor(deps, systemActor("test"));
      const user = await createUser(operator, { username: "killed" });
      userId = user.id;
      const key = await createKeyPair(operator, { user: user.id, scopes: ["trade.demo:write"] });
      const quotes = await currentQuotes(deps, INSTRUMENTS);
      for (let n = 0; n < POSITIONS; n++) {
        const q = quotes.get(INSTRUMENTS[n % INSTRUMENTS.length]!)!;
        const k = 0.002 + (0.024 * n) / POSITIONS;
        const long = n % 3 !== 0;
        const res = await app.inject({
          method: "POST",
          url: BY_AMOUNT,
          headers: { "x-api-key": key.apiKey, "x-user-key": key.userKey, "x-request-id": randomUUID() },
          payload: {
            InstrumentID: q.instrumentId,
            IsBuy: long,
            Leverage: 1,
            Amount: 100,
            StopLossRate: long ? q.bid * (1 - k) : q.ask * (1 + k),
            TakeProfitRate: long ? q.ask * (1 + k) : q.bid * (1 - k),
          },
        });
        expect(res.statusCode, res.body).toBe(200);
        opened.push(res.json().orderForOpen.positionID);
      }
      await app.close();
    } finally {
      await closeDeps(deps);
    }
    const file = new Database(db, { readonly: true });
    const count = (table: string) =>
      (file.prepare(`select count(*) as n from ${table} where user_id = ?`).get(userId) as { n: number }).n;

    // 2. A slowly moving market (a tick every 20 ms): the levels are crossed one after another.
    //    The market ticks before the server prints its banner, so the file is watched from the
    //    start; SIGKILL once a few have closed, with most still to go.
    const burst = spawnServe(db, { MARKET_TICK_MS: "20", MARKET_VOLATILITY: "0.0002" });
    running.push(burst);
    let closedBeforeKill = 0;
    for (let i = 0; i < 5000 && closedBeforeKill < 5; i++) {
      await sleep(4);
      closedBeforeKill = count("demo_trades");
    }
    burst.kill("SIGKILL");
    await exited(burst);
    const closedAtKill = count("demo_trades");
    expect(closedBeforeKill).toBeGreaterThanOrEqual(5);
    expect(closedAtKill).toBeLessThan(POSITIONS / 2);

    // 3. Started again on the same file, on a faster market (the walk starts again from the
    //    seed prices, so every level is crossed within a second or so): the rest close, none twice.
    const after = spawnServe(db, { MARKET_TICK_MS: "20", MARKET_VOLATILITY: "0.005" });
    running.push(after);
    const open = () =>
      (
        file.prepare("select count(*) as n from demo_positions where status = 'open' and user_id = ?").get(userId) as {
          n: number;
        }
      ).n;
    for (let i = 0; i < 500 && open() > 0; i++) await sleep(50);
    after.kill("SIGTERM");
    expect(await exited(after)).toBe(0);
    expect(open()).toBe(0);

    try {
      expect(file.pragma("integrity_check", { simple: true })).toBe("ok");
      const positions = file
        .prepare(
          "select position_id, status, initial_amount_cents, stop_loss_rate, take_profit_rate from demo_positions where user_id = ?",
        )
        .all(userId) as {
        position_id: number;
        status: string;
        initial_amount_cents: number;
        stop_loss_rate: number;
        take_profit_rate: number;
      }[];
      expect(positions.map((p) => p.position_id).sort((a, b) => a - b)).toEqual(opened.sort((a, b) => a - b));
      expect(positions.filter((p) => p.status !== "closed")).toEqual([]);
      const trades = file
        .prepare(
          "select position_id, close_reason, close_rate, stop_loss_rate, take_profit_rate, investment_cents, net_profit_cents from demo_trades where user_id = ?",
        )
        .all(userId) as {
        position_id: number;
        close_reason: string;
        close_rate: number;
        stop_loss_rate: number;
        take_profit_rate: number;
        investment_cents: number;
        net_profit_cents: number;
      }[];
      // One close trade, and one close order, per position.
      expect(trades).toHaveLength(POSITIONS);
      expect(new Set(trades.map((t) => t.position_id)).size).toBe(POSITIONS);
      const closeOrders = file
        .prepare(
          `select position_id, count(*) as n from demo_orders where order_type = ${ORDER_TYPE_CLOSE} and user_id = ? group by position_id`,
        )
        .all(userId) as { position_id: number; n: number }[];
      expect(closeOrders).toHaveLength(POSITIONS);
      expect(closeOrders.filter((o) => o.n !== 1)).toEqual([]);
      // Each closed by its own level, at that level.
      for (const t of trades) {
        expect(["StopLoss", "TakeProfit"]).toContain(t.close_reason);
        expect(t.close_rate).toBeCloseTo(t.close_reason === "StopLoss" ? t.stop_loss_rate : t.take_profit_rate, 6);
      }
      // The cash is the start, less every margin paid, plus every margin and profit returned.
      const account = file
        .prepare("select cash_cents, starting_cents, realized_pnl_cents from demo_accounts where user_id = ?")
        .get(userId) as {
        cash_cents: number;
        starting_cents: number;
        realized_pnl_cents: number;
      };
      const paid = positions.reduce((s, p) => s + p.initial_amount_cents, 0);
      const returned = trades.reduce((s, t) => s + t.investment_cents + t.net_profit_cents, 0);
      expect(account.cash_cents).toBe(account.starting_cents - paid + returned);
      expect(account.realized_pnl_cents).toBe(trades.reduce((s, t) => s + t.net_profit_cents, 0));
    } finally {
      file.close();
    }
  }, 60_000);
});
