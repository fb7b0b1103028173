/** The real-time WebSocket channel (docs/realtime.md): REALTIME_*. */

import { parseRateLimitPolicy, type RateLimitPolicy } from "./rate-limits.js";
import type { Pick } from "./shared.js";

export interface RealtimeSettings {
  /** REALTIME_PORT: serve `/ws` on this port of its own as well; undefined = only on PORT. */
  port: number | undefined;
  /** Authenticated sockets one user may hold (every instance's, with Redis); the next Authenticate is refused. */
  maxConnectionsPerUser: number;
  /** Client operations (Authenticate, Subscribe, Unsubscribe) per socket per window. */
  operations: RateLimitPolicy;
  /** Milliseconds between keepalives (a binary 0x00 frame and a ping); 0 = none. */
  keepaliveMs: number;
  /** Bytes written to a socket and not yet taken by the client before rates are conflated. */
  bufferBytes: number;
  /** Private and notification events waiting for a slow client before its socket is closed. */
  maxQueuedEvents: number;
  /** Seconds a socket may stay unauthenticated before it is closed (1008); 0 = no deadline. */
  authTimeoutSeconds: number;
  /** Unauthenticated sockets this instance holds at once; the next upgrade is refused with 503. */
  maxUnauthenticated: number;
}

const whole = (
  pick: Pick,
  name: string,
  fallback: number,
  min: number,
  max: number,
  unit: string,
  problems: string[],
): number => {
  const text = pick(undefined, name);
  if (text === undefined) return fallback;
  if (/^\d+$/.test(text) && Number(text) >= min && Number(text) <= max) return Number(text);
  problems.push(`${name} must be a whole number of ${unit} from ${min} to ${max} (got "${text}")`);
  return fallback;
};

export function parseRealtimeSettings(pick: Pick, problems: string[]): RealtimeSettings {
  const portText = pick(undefined, "REALTIME_PORT");
  let port: number | undefined;
  if (portText !== undefined) {
    if (/^\d+$/.test(portText) && Number(portText) <= 65535) port = Number(portText);
    else problems.push(`REALTIME_PORT must be an integer from 0 to 65535, or unset (got "${portText}")`);
  }
  const opsText = pick(undefined, "REALTIME_RATE_LIMIT") ?? "100/10s";
  const operations = parseRateLimitPolicy(opsText);
  if (!operations) {
    problems.push(
      `REALTIME_RATE_LIMIT must be <operations>/<window> with a window in s, m or h, e.g. 100/10s, at most 24h (got "${opsText}")`,
    );
  }
  return {
    port,
    maxConnectionsPerUser: whole(pick, "REALTIME_MAX_CONNECTIONS_PER_USER", 10, 1, 10_000, "sockets", problems),
    operations: operations ?? { max: 100, windowSeconds: 10 },
    keepaliveMs: whole(pick, "REALTIME_KEEPALIVE_MS", 20_000, 0, 3_600_000, "milliseconds", problems),
    bufferBytes: whole(pick, "REALTIME_BUFFER_BYTES", 1_048_576, 1024, 1_073_741_824, "bytes", problems),
    maxQueuedEvents: whole(pick, "REALTIME_MAX_QUEUED_EVENTS", 1000, 1, 1_000_000, "events", problems),
    authTimeoutSeconds: whole(pick, "REALTIME_AUTH_TIMEOUT_SECONDS", 30, 0, 86_400, "seconds", problems),
    maxUnauthenticated: whole(pick, "REALTIME_MAX_UNAUTHENTICATED", 1000, 1, 1_000_000, "sockets", problems),
  };
}
