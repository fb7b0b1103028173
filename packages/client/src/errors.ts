/** One problem of a request, as the server's error body lists them (`details`). */
export interface ErrorDetail {
  field: string;
  message: string;
}

/**
 * A refused call: the server's one error body (`{ errorCode, errorMessage, requestId, details? }`,
 * the server's src/http/errors.ts) with the HTTP status. OAuth's token endpoint answers RFC 6749's
 * `{ error, error_description }`, read into the same fields.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";

  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    /** The id the server logged the request under (body or x-request-id header). */
    readonly requestId: string | undefined,
    readonly details: readonly ErrorDetail[],
    /** Seconds the server asked to wait (Retry-After), when it did. */
    readonly retryAfter: number | undefined,
    /** The whole body as received. */
    readonly body: unknown,
  ) {
    super(`${status} ${errorCode}: ${message}${requestId ? ` (request ${requestId})` : ""}`);
  }

  /** The error a non-2xx response stands for. Reads the body. */
  static async of(response: Response): Promise<ApiError> {
    const text = await response.text().catch(() => "");
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (a proxy's page): kept as text.
    }
    const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    const details = Array.isArray(b.details)
      ? (b.details as unknown[]).filter(
          (d): d is ErrorDetail => typeof d === "object" && d !== null && "field" in d && "message" in d,
        )
      : [];
    return new ApiError(
      response.status,
      str(b.errorCode) ?? str(b.error) ?? `Http${response.status}`,
      str(b.errorMessage) ?? str(b.error_description) ?? (response.statusText || "request failed"),
      str(b.requestId) ?? response.headers.get("x-request-id") ?? undefined,
      details,
      retryAfterSeconds(response.headers.get("retry-after"), Date.now()),
      body,
    );
  }
}

/** Retry-After as seconds from `now`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
