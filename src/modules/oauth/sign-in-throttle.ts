import type { Deps } from "../context.js";
import { type SignInCounterRow, signInCountersRepository } from "./sign-in-counters.repository.js";
import {
  accountPoolKey,
  addressKey,
  devicePoolKey,
  type SignInPool,
  secondsUntil,
  signInDelaySeconds,
} from "./sign-in-throttle.rules.js";

/** An attempt may be checked: it is already counted as a failure (success forgets the pool). */
export interface ClaimedAttempt {
  ok: true;
  /** The pool's failures, this attempt included. */
  failures: number;
  /** The wait this attempt sets if it fails (seconds; 0 while failures are free). */
  delaySeconds: number;
  /** The wait the previous failure had set. */
  previousDelaySeconds: number;
  /** Attempts refused during the previous wait. */
  refusedBefore: number;
}

/** The pool is waiting: the attempt is refused without looking at the password. */
export interface RefusedAttempt {
  ok: false;
  failures: number;
  retryAfter: number;
  /** The first refusal of this wait (the one the audit trail keeps). */
  firstRefusal: boolean;
}

export interface PoolChoice {
  pool: SignInPool;
  key: string;
}

/**
 * Which counter an attempt spends (decision 0104): its device cookie's, when the browser holds a
 * valid one of the account typed; else, when the account signed in from this client address
 * within SIGNIN_DEVICE_DAYS, that address's own; else the account's counter of unknown browsers
 * (an unknown username always lands there).
 */
export async function chooseSignInPool(
  deps: Deps,
  typed: { username: string; address: string },
  accountId: string | undefined,
  deviceCookie: { userId: string; nonce: string } | null,
): Promise<PoolChoice> {
  if (accountId && deviceCookie?.userId === accountId)
    return { pool: "device", key: devicePoolKey(deviceCookie.nonce) };
  if (accountId) {
    const key = addressKey(accountId, typed.address);
    if (await signInCountersRepository(deps.db.kysely).isKnownAddress(key, deps.clock.now().toISOString())) {
      return { pool: "address", key: `address:${key}` };
    }
  }
  return { pool: "account", key: accountPoolKey(typed.username) };
}

/** After a success: this address is known for this account for SIGNIN_DEVICE_DAYS. */
export async function rememberSignInAddress(deps: Deps, userId: string, address: string): Promise<void> {
  const expiresAt = new Date(deps.clock.now().getTime() + deps.config.signIn.deviceCookieSeconds * 1000);
  await signInCountersRepository(deps.db.kysely).rememberAddress(addressKey(userId, address), expiresAt.toISOString());
}

/** A bound on compare-and-set retries when instances race for one pool. */
const MAX_RACES = 8;

/**
 * Counts an attempt of the pool `key` before its password is checked, so that attempts racing
 * (in one instance or several) cannot all pass while the pool is open: each must move the counter
 * on from the state it read. A pool whose delay has not ended refuses.
 */
export async function claimSignInAttempt(deps: Deps, key: string): Promise<ClaimedAttempt | RefusedAttempt> {
  const settings = deps.config.signIn;
  const repo = signInCountersRepository(deps.db.kysely);
  for (let race = 0; race < MAX_RACES; race++) {
    const now = deps.clock.now();
    const nowIso = now.toISOString();
    const row = await repo.find(key);
    const live: SignInCounterRow | undefined = row && row.expiresAt > nowIso ? row : undefined;
    if (live && live.lockedUntil > nowIso) {
      const refusals = await repo.noteRefusal(key);
      return {
        ok: false,
        failures: live.failures,
        retryAfter: secondsUntil(live.lockedUntil, now),
        firstRefusal: refusals === 1,
      };
    }
    const failures = (live?.failures ?? 0) + 1;
    const delaySeconds = signInDelaySeconds(failures, settings);
    const lockedUntil = new Date(now.getTime() + delaySeconds * 1000);
    const values = {
      failures,
      lockedUntil: lockedUntil.toISOString(),
      expiresAt: new Date(lockedUntil.getTime() + settings.windowSeconds * 1000).toISOString(),
    };
    if (row ? await repo.replace(row, values) : await repo.insert(key, values)) {
      return {
        ok: true,
        failures,
        delaySeconds,
        previousDelaySeconds: signInDelaySeconds(failures - 1, settings),
        refusedBefore: live?.refusals ?? 0,
      };
    }
  }
  // Lost every race: others are being checked right now; this one comes back in a second.
  return { ok: false, failures: 0, retryAfter: 1, firstRefusal: false };
}

/** A successful sign-in forgets the failures of the pool it spent. */
export async function forgetSignInFailures(deps: Deps, key: string): Promise<void> {
  await signInCountersRepository(deps.db.kysely).delete(key);
}
