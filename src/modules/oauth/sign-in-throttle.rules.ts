import { createHash } from "node:crypto";
import type { SignInSettings } from "../../config.js";

/** Which failure counter an attempt spends (decision 0104). */
export type SignInPool = "account" | "device" | "address";

/**
 * The wait after the `failures`-th failure of a pool: none while failures stay below the free
 * ones, then 1 s, 2 s, 4 s … doubling per failure, never above the cap.
 */
export function signInDelaySeconds(
  failures: number,
  settings: Pick<SignInSettings, "freeFailures" | "maxDelaySeconds">,
): number {
  if (failures < settings.freeFailures) return 0;
  return Math.min(2 ** Math.min(failures - settings.freeFailures, 40), settings.maxDelaySeconds);
}

/**
 * The counter of an account's attempts from browsers it has not signed in on: named by the
 * username as the store matches it (case-insensitive), whether or not the account exists, so an
 * unknown username is throttled exactly like a known one; hashed, so the key is short and holds
 * no typed text.
 */
export const accountPoolKey = (username: string) =>
  `account:${createHash("sha256").update(username.trim().toLowerCase()).digest("hex")}`;

/** The counter of one browser that signed in to the account before (its device cookie's nonce). */
export const devicePoolKey = (nonce: string) => `device:${nonce}`;

/**
 * An account and a client address it signed in from: the key of that address's own counter for
 * that account, and of the record that it is known.
 */
export const addressKey = (userId: string, address: string) =>
  createHash("sha256").update(`${userId}|${address}`).digest("hex");

/** Whole seconds until `until` (at least 1 while it is still ahead). */
export const secondsUntil = (until: string, now: Date) =>
  Math.max(1, Math.ceil((Date.parse(until) - now.getTime()) / 1000));
