import type { Auth } from "./credentials.js";
import { retryAfterSeconds } from "./errors.js";

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** The longest wait between attempts; a Retry-After beyond it ends the retries (default 30 s). */
  maxDelayMs?: number;
  /** The first wait when the server names none; doubled each time (default 250 ms). */
  baseDelayMs?: number;
}

export interface TransportOptions {
  auth?: Auth | undefined;
  retry?: RetryOptions | undefined;
  fetch: (request: Request) => Promise<Response>;
  newRequestId: () => string;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Statuses worth another attempt: the server asked to come back later. */
export const RETRIED_STATUSES = new Set([429, 503]);

const abortableSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** How long to wait before attempt `attempt + 1`, or undefined to stop and hand the answer back. */
export function retryDelay(response: Response, attempt: number, retry: Required<RetryOptions>): number | undefined {
  if (attempt >= retry.retries) return undefined;
  const asked = retryAfterSeconds(response.headers.get("retry-after"), Date.now());
  if (asked !== undefined) {
    const ms = asked * 1000;
    return ms > retry.maxDelayMs ? undefined : ms;
  }
  return Math.min(retry.baseDelayMs * 2 ** attempt, retry.maxDelayMs);
}

/**
 * The fetch every call goes through: one x-request-id per call, the same on each of its
 * attempts (so an order retried is made at most once), the credential's headers, a refresh after
 * a 401, and bounded retries on 429/503 honouring Retry-After.
 */
export function transport(options: TransportOptions): (request: Request) => Promise<Response> {
  const retry: Required<RetryOptions> = {
    retries: options.retry?.retries ?? 3,
    maxDelayMs: options.retry?.maxDelayMs ?? 30_000,
    baseDelayMs: options.retry?.baseDelayMs ?? 250,
  };
  const sleep = options.sleep ?? abortableSleep;
  return async (request) => {
    const headers = new Headers(request.headers);
    if (!headers.has("x-request-id")) headers.set("x-request-id", options.newRequestId());
    // Read once, sent on every attempt.
    const body = request.body ? await request.arrayBuffer() : undefined;
    let refreshed = false;
    for (let attempt = 0; ; ) {
      const sent = new Headers(headers);
      await options.auth?.apply(sent);
      const response = await options.fetch(
        new Request(request.url, { method: request.method, headers: sent, body, signal: request.signal }),
      );
      if (response.status === 401 && !refreshed && options.auth) {
        refreshed = true;
        if (await options.auth.refresh()) {
          await response.body?.cancel();
          continue;
        }
      }
      if (RETRIED_STATUSES.has(response.status)) {
        const wait = retryDelay(response, attempt, retry);
        if (wait !== undefined) {
          await response.body?.cancel();
          await sleep(wait, request.signal);
          attempt += 1;
          continue;
        }
      }
      return response;
    }
  };
}
