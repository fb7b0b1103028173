import type { UserActor } from "../../core/actor.js";
import { isAdmitted } from "../../core/scopes.js";
import { MARKET_DATA_SCOPES } from "../market/market-data.js";
import { LIST_NOTIFICATIONS_SCOPES } from "../notifications/list-notifications.js";
import { PRICE_ALERTS_READ } from "../price-alerts/price-alerts.view.js";
import { READ_SCOPES } from "../trading/demo-account.js";

/**
 * The topics: upstream's `instrument:<instrumentId>` and `private`, and our `notifications`
 * extension. Each needs the scopes of the REST operations that read the same thing.
 */
export type Topic =
  | { kind: "instrument"; name: string; instrumentId: number }
  | { kind: "private"; name: "private" }
  | { kind: "notifications"; name: "notifications" };

const INSTRUMENT = /^instrument:([1-9]\d{0,9})$/i;

/** A topic name as a client wrote it, or undefined when it names no topic. */
export function parseTopic(text: unknown): Topic | undefined {
  if (typeof text !== "string") return undefined;
  const match = INSTRUMENT.exec(text);
  if (match) {
    const instrumentId = Number(match[1]);
    if (instrumentId > 2_147_483_647) return undefined;
    return { kind: "instrument", name: `instrument:${instrumentId}`, instrumentId };
  }
  const lower = text.toLowerCase();
  if (lower === "private") return { kind: "private", name: "private" };
  if (lower === "notifications") return { kind: "notifications", name: "notifications" };
  return undefined;
}

const SCOPES = {
  instrument: MARKET_DATA_SCOPES,
  private: READ_SCOPES,
  notifications: LIST_NOTIFICATIONS_SCOPES,
} as const;

export const mayRead = (actor: UserActor, kind: Topic["kind"]): boolean => isAdmitted(actor.scopes, SCOPES[kind]);

/** Whether a credential can use any topic at all (else Authenticate answers Forbidden). */
export const mayUseChannel = (actor: UserActor): boolean =>
  (Object.keys(SCOPES) as Topic["kind"][]).some((kind) => mayRead(actor, kind));

export const scopesOf = (kind: Topic["kind"]): readonly string[] => SCOPES[kind];

/** Whether a `private` socket also hears its user's price alerts fire (they need a price-alerts scope). */
export const hearsPriceAlerts = (actor: UserActor | undefined): boolean =>
  actor !== undefined && isAdmitted(actor.scopes, PRICE_ALERTS_READ);
