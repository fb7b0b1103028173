import { ERROR_STATUS } from "../../src/core/errors.js";

/** What the fuzzer requires of every answer, whatever was sent. */
export interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

const BODY_KEYS = new Set(["errorCode", "errorMessage", "requestId", "details"]);

/**
 * Problems with one answer, empty when it is fine: no 5xx; every answer carries `x-request-id`;
 * every error has exactly the one body `{ errorCode, errorMessage, requestId, details? }` with
 * `requestId` equal to the header and a known `errorCode` whose status is the answer's.
 */
export function problemsOf(answer: Answer, documented: ReadonlySet<string> = new Set()): string[] {
  const problems: string[] = [];
  const { statusCode: status } = answer;
  if (status >= 500) problems.push(`status ${status}`);
  const header = answer.headers["x-request-id"];
  if (typeof header !== "string" || header === "") problems.push("no x-request-id header");
  if (status < 400) return problems;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return [...problems, `error body is not JSON: ${answer.body.slice(0, 80)}`];
  }
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return [...problems, "error body is not an object"];
  const extra = Object.keys(body).filter((k) => !BODY_KEYS.has(k) && !documented.has(k));
  if (extra.length) problems.push(`error body has ${extra.join(", ")}`);
  if (typeof body.errorCode !== "string") problems.push("no errorCode");
  else if (!(body.errorCode in ERROR_STATUS)) problems.push(`unknown errorCode ${body.errorCode}`);
  else if (ERROR_STATUS[body.errorCode as keyof typeof ERROR_STATUS] !== status) {
    problems.push(`errorCode ${body.errorCode} on a ${status}`);
  }
  if (typeof body.errorMessage !== "string" || body.errorMessage === "") problems.push("no errorMessage");
  if (typeof body.requestId !== "string" || body.requestId === "") problems.push("no requestId");
  else if (body.requestId !== header) problems.push("requestId differs from x-request-id");
  // An operation documenting upstream's service envelope (price alerts) may carry it, whole; the
  // router's refusals (a bad escape, a 414) come before any route is known, without it. That its
  // route's errors do carry it is held by test/price-alerts and the contract test.
  if (documented.has("error") && ("success" in body || "error" in body)) {
    const error = body.error as { code?: unknown; message?: unknown } | undefined;
    if (body.success !== false || typeof error?.code !== "string" || typeof error.message !== "string") {
      problems.push("no service envelope { success: false, error: { code, message } }");
    }
  }
  if (body.details !== undefined) {
    const ok =
      Array.isArray(body.details) &&
      body.details.every(
        (d) => d && typeof d === "object" && typeof d.field === "string" && typeof d.message === "string",
      );
    if (!ok) problems.push("details are not [{ field, message }]");
  }
  return problems;
}

/** One line per distinct problem, with one example request, so a report stays readable. */
export class Findings {
  private readonly seen = new Map<string, string>();

  add(key: string, example: string): void {
    if (!this.seen.has(key)) this.seen.set(key, example);
  }

  list(): string[] {
    return [...this.seen.entries()].map(([key, example]) => `${key} — e.g. ${example}`);
  }

  get size(): number {
    return this.seen.size;
  }
}

export const shorten = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
