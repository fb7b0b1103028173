import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { systemActor } from "../../src/core/actor.js";
import { withActor } from "../../src/modules/context.js";
import { createUser } from "../../src/modules/identity/create-user.js";
import { createKeyPair } from "../../src/modules/identity/key-pairs.js";
import { ensureInstrumentCatalog } from "../../src/modules/market/seed-catalog.js";
import { closeDeps, createDeps } from "../../src/runtime.js";

const BIN = join(import.meta.dirname, "../../bin/social-trading-api.js");
const BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
const CALLERS = 24;
/** Orders acknowledged before the kill: enough for many shared commits. */
const ACKNOWLEDGED_BEFORE_KILL = 400;
/** Each caller's demo balance (USD): big orders soon exceed it, so refusals mix with the passes. */
const BALANCE = 20_000;

/** `serve` as a user runs it (the built dist, a SQLite file, group commit on by default). */
function spawnServe(db: string): ChildProcess {
  return spawn(process.execPath, [BIN, "serve", "--port", "0", "--database", db, "--json"], {
    env: {
      ...process.env,
      LOG_LEVEL: "warn",
      SEED: "never",
      RATE_LIMITS_ENABLED: "false",
      DEMO_BALANCE: String(BALANCE),
      MARKET_TICK_MS: "1000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** The base URL from the banner `serve --json` prints once it listens. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr!.on("data", (c) => (err += c));
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      const match = /"baseUrl":\s*"([^"]+)"/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve()),
  );

interface Sent {
  caller: number;
  requestId: string;
  amount: number;
  /** 200 (acknowledged), another status, or undefined: no answer (the server died first). */
  status?: number;
  // biome-ignore lint/suspicious/noExplicitAny: the order body or the error body
  body?: any;
}

/** Small orders mostly, a big one now and then: cents, so every amount is exact. */
const amountFor = (n: number) => (n % 5 === 0 ? 2_000 + (n % 7) * 500 : 1 + ((n * 37) % 5_000) / 100);

/**
 * `kill -9` while many callers' orders are being written in shared commits (group commit,
 * decision 0172), then a restart on the same file: every order that was answered 200 is there
 * with its exact amount, its position and its request id, and the restarted server replays it;
 * no order is half-written (each has its position and its request id, every position its order);
 * each caller's cash is exactly the start less what its orders took, never below zero.
 */
describe("kill -9 while orders from many callers are acknowledged", () => {
  const dir = mkdtempSync(join(tmpdir(), "sta-kill-orders-"));
  const db = join(dir, "orders.db");
  const running: ChildProcess[] = [];
  afterAll(() => {
    for (const child of running) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps every acknowledged order whole across the crash, and nothing half-written", async () => {
    expect(
      existsSync(join(import.meta.dirname, "../../dist/main.js")),
      "build first: npx tsc -b tsconfig.build.json",
    ).toBe(true);
    // 1. The callers, made in this process on the file the server will use.
    const config = loadConfig({ LOG_LEVEL: "silent", SEED: "never" }, { database: db });
    const deps = await createDeps(config);
    const callers: { userId: string; headers: Record<string, string> }[] = [];
    try {
      await ensureInstrumentCatalog(deps);
      const operator = withActor(deps, systemActor("test"));
      for (let i = 0; i < CALLERS; i++) {
        const user = await createUser(operator, { username: `crash${i}` });
        const key = await createKeyPair(operator, { user: user.id, scopes: ["trade.demo:write"] });
        callers.push({
          userId: user.id,
          headers: { "x-api-key": key.apiKey, "x-user-key": key.userKey, "content-type": "application/json" },
        });
      }
    } finally {
      await closeDeps(deps);
    }

    // 2. Every caller sends orders back to back (now and then the same x-request-id again);
    //    SIGKILL once enough have been acknowledged, with many still in flight.
    const server = spawnServe(db);
    running.push(server);
    const baseUrl = await listening(server);
    const sent: Sent[] = [];
    let acknowledged = 0;
    let killed = false;
    const order = (caller: number, requestId: string, amount: number) =>
      fetch(baseUrl + BY_AMOUNT, {
        method: "POST",
        headers: { ...callers[caller]!.headers, "x-request-id": requestId },
        body: JSON.stringify({ InstrumentID: 1001, IsBuy: true, Leverage: 1, Amount: amount }),
      });
    const caller = async (c: number) => {
      let previous: Sent | undefined;
      for (let n = c; !killed; n += CALLERS) {
        const replay = previous !== undefined && n % 6 === 0;
        const s: Sent = replay
          ? { caller: c, requestId: previous!.requestId, amount: previous!.amount }
          : { caller: c, requestId: randomUUID(), amount: amountFor(n) };
        sent.push(s);
        try {
          const res = await order(c, s.requestId, s.amount);
          s.body = await res.json();
          s.status = res.status;
          if (res.status === 200 && !replay) acknowledged += 1;
        } catch {
          // No answer: the server is gone. The order may or may not have been written.
          return;
        }
        previous = s;
        if (acknowledged >= ACKNOWLEDGED_BEFORE_KILL && !killed) {
          killed = true;
          server.kill("SIGKILL");
        }
      }
    };
    await Promise.all(callers.map((_, c) => caller(c)));
    await exited(server);
    expect(server.signalCode).toBe("SIGKILL");
    const acks = sent.filter((s) => s.status === 200);
    expect(acks.length).toBeGreaterThanOrEqual(ACKNOWLEDGED_BEFORE_KILL);
    // The cash ran out for some orders: the refusals are in the mix.
    expect(sent.some((s) => s.status === 422 && /available cash/.test(s.body?.errorMessage))).toBe(true);
    // Every answer was either an acknowledgement or the refusal of an order the cash did not cover.
    expect(sent.filter((s) => s.status !== undefined && s.status !== 200 && s.status !== 422)).toEqual([]);

    // 3. Restarted on the same file: each acknowledged order replays as the same order.
    const again = spawnServe(db);
    running.push(again);
    const restartedUrl = await listening(again);
    const replays = await Promise.all(
      acks.map(async (s) => {
        const res = await fetch(restartedUrl + BY_AMOUNT, {
          method: "POST",
          headers: { ...callers[s.caller]!.headers, "x-request-id": s.requestId },
          body: JSON.stringify({ InstrumentID: 1001, IsBuy: true, Leverage: 1, Amount: s.amount }),
        });
        return { status: res.status, body: await res.json() };
      }),
    );
    expect(replays.map((r) => r.status)).toEqual(acks.map(() => 200));
    expect(replays.map((r) => r.body)).toEqual(acks.map((s) => s.body));
    again.kill("SIGTERM");
    await exited(again);

    // 4. The file itself.
    const file = new Database(db, { readonly: true });
    try {
      expect(file.pragma("integrity_check", { simple: true })).toBe("ok");
      for (const [c, { userId }] of callers.entries()) {
        const orders = file
          .prepare("select order_id, amount_cents, reference_id from demo_orders where user_id = ?")
          .all(userId) as { order_id: number; amount_cents: number; reference_id: string }[];
        const positions = file
          .prepare("select position_id, order_id, amount_cents from demo_positions where user_id = ?")
          .all(userId) as { position_id: number; order_id: number; amount_cents: number }[];
        const keys = file
          .prepare("select request_id, response from idempotency_keys where user_id = ?")
          .all(userId) as { request_id: string; response: string }[];
        // Whole: each order has its position (the same amount) and its request id, and back.
        expect(positions.map((p) => [p.order_id, p.amount_cents]).sort()).toEqual(
          orders.map((o) => [o.order_id, o.amount_cents]).sort(),
        );
        expect(keys.map((k) => k.request_id).sort()).toEqual(orders.map((o) => o.reference_id).sort());
        // Every acknowledged order is there, with its exact amount.
        const byReference = new Map(orders.map((o) => [o.reference_id, o]));
        for (const s of acks.filter((a) => a.caller === c)) {
          const stored = byReference.get(s.requestId);
          expect(stored, `acknowledged order ${s.requestId} of caller ${c}`).toBeDefined();
          expect(stored!.order_id).toBe(s.body.orderForOpen.orderID);
          expect(stored!.amount_cents).toBe(Math.round(s.amount * 100));
        }
        // Orders stored without an acknowledgement can only be ones whose answer the kill cut off.
        const unanswered = new Set(
          sent.filter((s) => s.caller === c && s.status === undefined).map((s) => s.requestId),
        );
        const acked = new Set(acks.filter((s) => s.caller === c).map((s) => s.requestId));
        for (const o of orders) expect(acked.has(o.reference_id) || unanswered.has(o.reference_id)).toBe(true);
        // The cash is the balance less every stored order's margin, and never below zero.
        const account = file
          .prepare("select cash_cents, starting_cents from demo_accounts where user_id = ?")
          .get(userId) as { cash_cents: number; starting_cents: number } | undefined;
        const spent = orders.reduce((sum, o) => sum + o.amount_cents, 0);
        expect(account?.cash_cents ?? BALANCE * 100).toBe(BALANCE * 100 - spent);
        expect(account?.cash_cents ?? 0).toBeGreaterThanOrEqual(0);
      }
    } finally {
      file.close();
    }
  }, 120_000);
});
