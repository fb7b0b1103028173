/** Rate limits (RATE_LIMITS_ENABLED, RATE_LIMIT_PROFILE, RATE_LIMIT_<POOL>) and TRUST_PROXY, which decides the client address they count. */

import { isIP } from "node:net";
import type { Pick } from "./shared.js";

/** A quota: `max` requests per `windowSeconds`, counted from the first request of a window. */
export interface RateLimitPolicy {
  max: number;
  windowSeconds: number;
}

/**
 * The pools a request can spend. `notifications` is the extra per-second limit of notifications
 * GET; `writes` the extra pool of every non-GET operation (both come on top of the default pool).
 */
export const RATE_LIMIT_POOLS = ["default", "feed", "watchlist", "market-data", "writes", "notifications"] as const;
export type RateLimitPool = (typeof RATE_LIMIT_POOLS)[number];

/** `upstream`: upstream's exact quotas (the default); `sandbox`: generous ones for local development (0151). */
export const RATE_LIMIT_PROFILES = ["upstream", "sandbox"] as const;
export type RateLimitProfile = (typeof RATE_LIMIT_PROFILES)[number];

export interface RateLimitSettings {
  enabled: boolean;
  /** The quotas the pools start from (RATE_LIMIT_PROFILE); RATE_LIMIT_<POOL> overrides one pool. */
  profile: RateLimitProfile;
  pools: Record<RateLimitPool, RateLimitPolicy>;
}

export const DEFAULT_RATE_LIMITS: Record<RateLimitPool, RateLimitPolicy> = {
  default: { max: 60, windowSeconds: 60 },
  feed: { max: 60, windowSeconds: 60 },
  watchlist: { max: 60, windowSeconds: 60 },
  "market-data": { max: 120, windowSeconds: 60 },
  writes: { max: 20, windowSeconds: 60 },
  notifications: { max: 1, windowSeconds: 1 },
};

/**
 * RATE_LIMIT_PROFILE=sandbox: a hundred times upstream's quotas, so that a test suite or a README
 * tour run in a loop never waits for a window, while 429 and its headers still exist.
 */
export const SANDBOX_RATE_LIMITS: Record<RateLimitPool, RateLimitPolicy> = {
  default: { max: 6000, windowSeconds: 60 },
  feed: { max: 6000, windowSeconds: 60 },
  watchlist: { max: 6000, windowSeconds: 60 },
  "market-data": { max: 12_000, windowSeconds: 60 },
  writes: { max: 2000, windowSeconds: 60 },
  notifications: { max: 100, windowSeconds: 1 },
};

export const RATE_LIMIT_PROFILE_POOLS: Record<RateLimitProfile, Record<RateLimitPool, RateLimitPolicy>> = {
  upstream: DEFAULT_RATE_LIMITS,
  sandbox: SANDBOX_RATE_LIMITS,
};

/** false, true (trust every hop), a hop count, or a list of proxy addresses / CIDR ranges. */
export type TrustProxy = boolean | number | string[];

const rateLimitEnv = (pool: RateLimitPool) => `RATE_LIMIT_${pool.toUpperCase().replace("-", "_")}`;
const WINDOW_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** `60/60s`, `120/1m`, `1/1s`: requests per window; the window in s, m or h. */
export function parseRateLimitPolicy(text: string): RateLimitPolicy | null {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*([smh])\s*$/i.exec(text);
  if (!match) return null;
  const max = Number(match[1]);
  const windowSeconds = Number(match[2]) * WINDOW_UNITS[match[3]!.toLowerCase()]!;
  if (!Number.isSafeInteger(max) || max < 1 || windowSeconds < 1 || windowSeconds > 86_400) return null;
  return { max, windowSeconds };
}

function parseTrustProxy(text: string): TrustProxy | null {
  const value = text.trim().toLowerCase();
  if (value === "false") return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) return Number(value);
  const list = value.split(",").map((s) => s.trim());
  const valid = (entry: string) => {
    if (["loopback", "linklocal", "uniquelocal"].includes(entry)) return true;
    const [address = "", bits, ...rest] = entry.split("/");
    const family = isIP(address);
    if (family === 0 || rest.length > 0) return false;
    return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  };
  return list.every(valid) ? list : null;
}

export function parseRateLimitSettings(pick: Pick, problems: string[]): RateLimitSettings {
  const rateLimitsOn = (pick(undefined, "RATE_LIMITS_ENABLED") ?? "true").toLowerCase();
  if (rateLimitsOn !== "true" && rateLimitsOn !== "false") {
    problems.push(`RATE_LIMITS_ENABLED must be true or false (got "${rateLimitsOn}")`);
  }
  const profileText = (pick(undefined, "RATE_LIMIT_PROFILE") ?? "upstream").toLowerCase();
  const profile = RATE_LIMIT_PROFILES.find((p) => p === profileText);
  if (!profile) problems.push(`RATE_LIMIT_PROFILE must be upstream or sandbox (got "${profileText}")`);
  const pools = { ...RATE_LIMIT_PROFILE_POOLS[profile ?? "upstream"] };
  for (const pool of RATE_LIMIT_POOLS) {
    const text = pick(undefined, rateLimitEnv(pool));
    if (text === undefined) continue;
    const policy = parseRateLimitPolicy(text);
    if (policy) pools[pool] = policy;
    else {
      problems.push(
        `${rateLimitEnv(pool)} must be <requests>/<window> with a window in s, m or h, e.g. 60/60s or 120/1m, at most 24h (got "${text}")`,
      );
    }
  }
  return { enabled: rateLimitsOn === "true", profile: profile ?? "upstream", pools };
}

export function parseTrustProxySetting(pick: Pick, problems: string[]): TrustProxy {
  const trustProxyText = pick(undefined, "TRUST_PROXY") ?? "false";
  const trustProxy = parseTrustProxy(trustProxyText);
  if (trustProxy === null) {
    problems.push(
      `TRUST_PROXY must be true, false, a hop count, or a comma-separated list of proxy addresses or CIDR ranges (got "${trustProxyText}")`,
    );
  }
  return trustProxy as TrustProxy;
}
