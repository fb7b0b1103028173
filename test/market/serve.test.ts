import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// biome-ignore lint/suspicious/noExplicitAny: response bodies of several shapes, checked by the assertions
type Json = any;

const BIN = join(import.meta.dirname, "../../bin/social-trading-api.js");

/** `serve` as a user runs it: the market ticks on its own and a stop-loss fires without help. */
describe("serve runs the market", () => {
  let dir: string;
  let child: ChildProcess;
  let base: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sta-serve-"));
    child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--database", join(dir, "s.db"), "--json"], {
      env: { ...process.env, LOG_LEVEL: "warn", MARKET_TICK_MS: "50", MARKET_VOLATILITY: "0.002" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const banner = await new Promise<{ baseUrl: string; demo: { apiKey: string; userKey: string } }>(
      (resolve, reject) => {
        let out = "";
        child.stdout!.on("data", (chunk) => {
          out += chunk;
          try {
            resolve(JSON.parse(out));
          } catch {
            // not complete yet
          }
        });
        child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
      },
    );
    base = banner.baseUrl;
    headers = {
      "x-api-key": banner.demo.apiKey,
      "x-user-key": banner.demo.userKey,
      "content-type": "application/json",
    };
  }, 30_000);

  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(base + path, {
      method: init.method ?? "GET",
      headers: { ...headers, "x-request-id": randomUUID() },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const rate = async (id: number) =>
    (await call(`/api/v1/market-data/instruments/rates?instrumentIds=${id}`)).body.rates[0] as {
      bid: number;
      priceRateID: number;
    };

  it("prices move by themselves", async () => {
    const first = await rate(100000);
    await new Promise((r) => setTimeout(r, 400));
    const later = await rate(100000);
    expect(later.priceRateID).toBeGreaterThan(first.priceRateID);
    expect(later.bid).not.toBe(first.bid);
  });

  it("a stop-loss fires on its own and the owner is notified", async () => {
    // The price may cross the stop between reading it and ordering (422): read again and retry.
    let open = { status: 0, body: {} as { orderForOpen: { positionID: number } } };
    for (let i = 0; i < 20 && open.status !== 200; i++) {
      const { bid } = await rate(100000);
      open = await call("/api/v1/trading/execution/demo/market-open-orders/by-amount", {
        method: "POST",
        body: {
          InstrumentID: 100000,
          IsBuy: true,
          Leverage: 2,
          Amount: 500,
          StopLossRate: Math.round(bid * 0.999 * 100) / 100,
        },
      });
    }
    expect(open.status).toBe(200);
    const positionId = open.body.orderForOpen.positionID;
    // demo's history also holds its replayed year (seeded in the background): wait for this position.
    type Trade = { positionId: number; closeReason: string };
    let closed: Trade | undefined;
    for (let i = 0; i < 200 && !closed; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const trades: Trade[] = (await call("/api/v1/trading/info/trade/demo/history")).body;
      closed = trades.find((t) => t.positionId === positionId);
    }
    expect(closed).toMatchObject({ positionId, closeReason: "StopLoss" });
    const messages = (await call("/api/v1/notifications/messages")).body.messages as { notificationType: string }[];
    expect(messages.some((m) => m.notificationType === "PositionClosed")).toBe(true);
  }, 30_000);

  it("stops cleanly on SIGTERM", async () => {
    child.kill("SIGTERM");
    const code = await new Promise((r) => child.once("exit", r));
    expect(code).toBe(0);
  }, 20_000);
});
