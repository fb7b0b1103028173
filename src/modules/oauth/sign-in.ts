import type { AuditEntry } from "../../core/audit.js";
import { recordAudit } from "../audit/record-audit.js";
import type { Deps } from "../context.js";
import { authenticatePassword, findAccount } from "../identity/authenticate-password.js";
import { issueDeviceCookie, readDeviceCookie } from "./device-cookie.js";
import { type Session, startSession } from "./sessions.js";
import {
  chooseSignInPool,
  claimSignInAttempt,
  forgetSignInFailures,
  rememberSignInAddress,
} from "./sign-in-throttle.js";

export interface SignInAttempt {
  /** As typed on the page. */
  username: string;
  password: string;
  /** The client address, for the audit trail. */
  address: string;
  /** The browser's device cookie, if it sent one. */
  deviceCookie: string | undefined;
}

export type SignInResult =
  | { kind: "signed-in"; sessionId: string; session: Session; deviceCookie: string }
  | { kind: "wrong" }
  /** The pool is waiting: the password was not looked at. */
  | { kind: "throttled"; retryAfter: number };

/**
 * The sign-in of the OAuth login page, throttled per account (decision 0104). An attempt from a
 * browser holding a device cookie of the account it names spends that cookie's own counter; one
 * from an address the account signed in from spends that address's; any other attempt (a new
 * browser elsewhere, an attacker, an unknown username) spends the account's counter of unknown
 * browsers. Past the free failures a pool waits 1 s, 2 s, 4 s … up to the cap,
 * and while it waits passwords are not checked, so the answer says nothing about them.
 */
export async function signInWithPassword(deps: Deps, attempt: SignInAttempt): Promise<SignInResult> {
  const settings = deps.config.signIn;
  const account = await findAccount(deps, attempt.username);
  const device = await readDeviceCookie(deps, attempt.deviceCookie);
  const { pool, key } = await chooseSignInPool(deps, attempt, account?.userId, device);
  const audit = (entry: Pick<AuditEntry, "action" | "outcome">, details: Record<string, number>) =>
    recordAudit(deps, {
      ...entry,
      userId: account?.userId,
      address: attempt.address,
      details: { username: attempt.username, pool, ...details },
    });

  const claim = await claimSignInAttempt(deps, key);
  if (!claim.ok) {
    if (claim.firstRefusal) {
      const details = { failures: claim.failures, retryAfter: claim.retryAfter };
      await audit({ action: "sign-in.delayed", outcome: "refused" }, details);
    }
    return { kind: "throttled", retryAfter: claim.retryAfter };
  }

  const user = await authenticatePassword(deps, attempt.username, attempt.password);
  if (!user) {
    const details = { failures: claim.failures, retryAfter: claim.delaySeconds, refusedBefore: claim.refusedBefore };
    await audit({ action: "sign-in.failed", outcome: "failure" }, details);
    if (claim.delaySeconds === settings.maxDelaySeconds && claim.previousDelaySeconds < settings.maxDelaySeconds) {
      await audit({ action: "sign-in.locked", outcome: "refused" }, details);
    }
    return { kind: "wrong" };
  }

  await forgetSignInFailures(deps, key);
  await rememberSignInAddress(deps, user.userId, attempt.address);
  const started = await startSession(deps, user);
  const deviceCookie = await issueDeviceCookie(deps, user.userId, settings.deviceCookieSeconds);
  const details = { failuresBefore: claim.failures - 1, refusedBefore: claim.refusedBefore };
  await audit({ action: "sign-in.succeeded", outcome: "success" }, details);
  return { kind: "signed-in", ...started, deviceCookie };
}
