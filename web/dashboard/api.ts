import { refresh, storedTokens } from "./auth.ts";
import type { DashboardConfig } from "./config.ts";

/** An answer of the API that is not a success, with the server's own sentence. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfter: number | null = null,
    /** A 422's problems, one sentence per field (the server's `details`). */
    readonly details: readonly { field: string; message: string }[] = [],
  ) {
    super(message);
  }
}

interface ErrorBody {
  errorMessage?: string;
  message?: string;
  error?: { message?: string };
  details?: unknown;
}

/**
 * Calls the REST API with the signed-in user's bearer token and a fresh x-request-id (which the
 * trading and notification operations require). One refresh and retry on 401; `onSignedOut` when
 * that fails too.
 */
export function createApi(config: DashboardConfig, onSignedOut: () => void) {
  async function send(method: string, path: string, body: unknown, token: string): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      "x-request-id": crypto.randomUUID(),
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    return fetch(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  }

  return async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let tokens = storedTokens();
    if (tokens && tokens.expiresAt - Date.now() < 10_000) tokens = await refresh(config);
    if (!tokens) {
      onSignedOut();
      throw new ApiError(401, "Signed out");
    }
    let response = await send(method, path, body, tokens.accessToken);
    if (response.status === 401) {
      const renewed = await refresh(config);
      if (!renewed) {
        onSignedOut();
        throw new ApiError(401, "Your session ended; sign in again.");
      }
      response = await send(method, path, body, renewed.accessToken);
    }
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    if (!response.ok) {
      const e = (parsed ?? {}) as ErrorBody;
      const retryAfter = response.headers.get("retry-after");
      throw new ApiError(
        response.status,
        e.errorMessage ?? e.message ?? e.error?.message ?? `The server answered ${response.status}`,
        retryAfter === null ? null : Number(retryAfter),
        Array.isArray(e.details) ? (e.details as { field: string; message: string }[]) : [],
      );
    }
    return parsed as T;
  };
}

export type Api = ReturnType<typeof createApi>;
