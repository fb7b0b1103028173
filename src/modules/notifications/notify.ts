import { isoNow } from "../../core/clock.js";
import type { DomainEvent } from "../../core/events.js";
import { newId } from "../../core/ids.js";
import type { Executor } from "../../infra/db/executor.js";
import { type Deps, transact } from "../context.js";
import { NOTIFICATION_FORMAT_VERSION, NOTIFICATION_KINDS, type NotificationKindName } from "./notifications.catalog.js";
import { type NotificationRow, notificationsRepository } from "./notifications.repository.js";
import { toMessage } from "./notifications.view.js";

export interface NotifyInput {
  userId: string;
  kind: NotificationKindName;
  message: string;
  actionLink: string;
  imageUrl?: string;
  imageTitle?: string;
  /** Ties the notification to what caused it (an event or request id). */
  correlationId?: string;
  /** Notifications sharing one aggregation id can be folded together by a client. */
  aggregationId?: string;
  publishDate?: string;
}

/**
 * Stores one notification for one user; called by event subscribers and the seed. Then publishes
 * NotificationCreated with the item as the REST list shows it, for the real-time channel.
 */
export async function notify(deps: Deps, input: NotifyInput): Promise<string> {
  const row = rowOf(deps, input);
  await notificationsRepository(deps.db.kysely).insert(row);
  await deps.bus.publish([createdOf(row, isoNow(deps.clock))]);
  return row.id;
}

/**
 * Stores one notification inside the transaction `trx` whose write caused it (a write handler,
 * decision 0204): it commits with that write, in the same commit. NotificationCreated is recorded,
 * so it is published once the transaction has committed.
 */
export async function notifyWithin(
  trx: Executor,
  deps: Deps,
  input: NotifyInput,
  record: (event: DomainEvent) => void,
): Promise<void> {
  const row = rowOf(deps, input);
  await notificationsRepository(trx).insert(row);
  record(createdOf(row, isoNow(deps.clock)));
}

/**
 * Stores many notifications in a few statements and publishes their NotificationCreated events
 * together (the copiers of a batch of closed copies, decision 0162).
 */
export async function notifyMany(deps: Deps, inputs: readonly NotifyInput[]): Promise<void> {
  if (inputs.length === 0) return;
  const rows = inputs.map((input) => rowOf(deps, input));
  await transact(deps, (trx) => notificationsRepository(trx).insertMany(rows));
  const at = isoNow(deps.clock);
  await deps.bus.publish(rows.map((row) => createdOf(row, at)));
}

/** The event that tells the real-time channel of a stored notification, with the item as the REST list shows it. */
const createdOf = (row: NotificationRow, occurredAt: string): DomainEvent => ({
  type: "NotificationCreated",
  userId: row.userId,
  item: toMessage(row),
  occurredAt,
});

function rowOf(deps: Deps, input: NotifyInput): NotificationRow {
  const kind = NOTIFICATION_KINDS[input.kind];
  const id = newId();
  const row: NotificationRow = {
    id,
    userId: input.userId,
    correlationId: input.correlationId ?? newId(),
    actionLink: input.actionLink,
    imageTitle: input.imageTitle ?? "",
    imageUrl: input.imageUrl ?? "",
    notificationType: kind.notificationType,
    version: NOTIFICATION_FORMAT_VERSION,
    aggregatable: kind.aggregatable ? 1 : 0,
    grouped: 0,
    aggregationId: input.aggregationId ?? "",
    message: input.message,
    readStatus: "New",
    publishDate: input.publishDate ?? isoNow(deps.clock),
    subCategory: kind.subCategory,
    category: kind.category,
    rtlLanguage: isRightToLeft(input.message) ? 1 : 0,
    section: kind.section,
  };
  return row;
}

/** True when the text's first strong character is Hebrew or Arabic script. */
export function isRightToLeft(text: string): boolean {
  const strong = text.match(/[A-Za-z\u00C0-\u024F\u0590-\u08FF]/);
  return strong !== null && /[\u0590-\u08FF]/.test(strong[0]);
}
