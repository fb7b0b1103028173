import type { Deps } from "../context.js";
import { type SignInCounterRow, signInCountersRepository } from "./sign-in-counters.repository.js";
import { secondsUntil, signInDelaySeconds } from "./sign-in-throttle.rules.js";

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
