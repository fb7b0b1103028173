import { randomUUID } from "node:crypto";
import type { App } from "../../src/app.js";
import type { Headers } from "../support/harness.js";

export const BY_AMOUNT = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
export const PORTFOLIO = "/api/v1/trading/info/demo/portfolio";
export const HISTORY = "/api/v1/trading/info/trade/demo/history";
export const AAPL = 1001;
/** Every order the load sends: 10 USD of AAPL, so balances are easy to check. */
export const ORDER = { InstrumentID: AAPL, IsBuy: true, Leverage: 1, Amount: 10 };

export interface Answer {
  kind: "order" | "read";
  requestId: string;
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: error bodies and order bodies, checked by the assertions
  body: any;
  headers: Record<string, unknown>;
  ms: number;
}

/**
 * Requests in a loop from `workers` concurrent callers until stopped: orders (a fresh
 * x-request-id each) and portfolio reads, alternately. Every answer is kept.
 */
export function runLoad(app: App, headers: Headers, workers = 6) {
  const answers: Answer[] = [];
  let stopping = false;
  const worker = async (w: number) => {
    for (let i = 0; !stopping; i++) {
      const kind = (i + w) % 2 === 0 ? "order" : "read";
      answers.push(await send(app, headers, kind));
    }
  };
  const running = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  return {
    answers,
    async stop(): Promise<Answer[]> {
      stopping = true;
      await running;
      return answers;
    },
  };
}

export async function send(
  app: App,
  headers: Headers,
  kind: "order" | "read",
  requestId: string = randomUUID(),
): Promise<Answer> {
  const started = Date.now();
  const res =
    kind === "order"
      ? await app.inject({
          method: "POST",
          url: BY_AMOUNT,
          headers: { ...headers, "x-request-id": requestId },
          payload: ORDER,
        })
      : await app.inject({ method: "GET", url: PORTFOLIO, headers: { ...headers, "x-request-id": requestId } });
  let body: unknown;
  try {
    body = res.json();
  } catch {
    body = res.body;
  }
  return { kind, requestId, status: res.statusCode, body, headers: res.headers, ms: Date.now() - started };
}

/** What is wrong with a failed answer, if anything: it must be a 503 in the one error body. */
export function unavailableProblem(a: Answer): string | undefined {
  if (a.status !== 503) return `${a.kind} ${a.requestId} answered ${a.status}: ${JSON.stringify(a.body)}`;
  const b = a.body as Record<string, unknown>;
  if (b?.errorCode !== "ServiceUnavailable") return `${a.kind} 503 with body ${JSON.stringify(b)}`;
  if (typeof b.errorMessage !== "string" || b.errorMessage.length === 0) return "503 without an errorMessage";
  if (b.requestId !== a.requestId || a.headers["x-request-id"] !== a.requestId)
    return `503 whose requestId ${String(b.requestId)} / header ${String(a.headers["x-request-id"])} is not ${a.requestId}`;
  if (!/^\d+$/.test(String(a.headers["retry-after"] ?? ""))) return "503 without a Retry-After";
  return undefined;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 100 ms until it holds or `ms` pass. */
export async function until(check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}
