import { systemActor } from "../../core/actor.js";
import { repeatEvery } from "../../core/repeat.js";
import { purgeAudit } from "../audit/list-audit.js";
import { type Deps, withActor } from "../context.js";
import { purgeUnreferencedMedia } from "../media/purge-media.js";
import { purgeExpiredOAuthState } from "../oauth/purge-expired.js";
import { chargeOvernightFees } from "../trading/costs/charge-overnight-fees.js";
import { purgeIdempotencyKeys } from "../trading/purge-idempotency-keys.js";
import { persistTrailingStops } from "../trading/triggers.js";

export interface RetentionReport {
  trailingStopsSaved: number;
  idempotencyKeys: number;
  codes: number;
  refreshTokens: number;
  sessions: number;
  signInCounters: number;
  auditEvents: number;
  /** Uploads no post or comment referenced within a day, deleted with their files. */
  media: number;
  /** Overnight fees charged (position × rollover) by this pass (decision 0132). */
  overnightFees: number;
}

/**
 * One maintenance pass: trailing-stop levels saved, and everything that expires purged. Safe to
 * run on several instances at once.
 */
export async function runRetention(deps: Deps): Promise<RetentionReport> {
  const ctx = withActor(deps, systemActor("retention"));
  const trailingStopsSaved = await persistTrailingStops(deps);
  const idempotencyKeys = await purgeIdempotencyKeys(ctx);
  const oauth = await purgeExpiredOAuthState(ctx);
  const auditEvents = await purgeAudit(ctx);
  const media = await purgeUnreferencedMedia(ctx);
  const overnightFees = (await chargeOvernightFees(deps)).charged;
  return { trailingStopsSaved, idempotencyKeys, ...oauth, auditEvents, media, overnightFees };
}

/**
 * Runs the purge now and every `everyMs` (10 minutes by default) until the returned stop is called; a
 * failed pass is logged and retried on the next. The timer never keeps the process alive.
 */
export function startRetention(deps: Deps, everyMs = 10 * 60_000): () => Promise<void> {
  return repeatEvery(
    everyMs,
    () =>
      runRetention(deps).then(
        (report) => deps.log.debug({ report }, "retention pass"),
        (error) => deps.log.warn({ err: error }, "retention pass failed"),
      ),
    { now: true },
  );
}
