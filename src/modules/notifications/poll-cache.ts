import type { EventBus } from "../../core/events.js";

/*
 * Per-user answers of `GET /api/v1/notifications/messages` that found nothing New, kept as the
 * bytes sent, so that a poll finding nothing new answers from memory: no read, no write
 * (docs/decisions/0171).
 *
 * Only an answer with `notSeen: 0` is kept: the read that finds New items moves them to Seen, so
 * its own answer is never the next one. An answer is dropped when the user's notifications change:
 * `NotificationCreated` (notify.ts) and `NotificationsChanged` (a read moving New to Seen, PATCH
 * to Read, the sandbox replacing the store), heard by every instance (`subscribeEverywhere`).
 * A change that lands while an answer is being computed makes that computation's ticket stale, so
 * the answer is sent but not kept. Answers also expire after `maxAgeMs`, which bounds what an
 * event lost between instances (Redis unavailable) can leave stale.
 */

export interface PollCacheLimits {
  /** Bytes of answers held in all (oldest dropped first). */
  maxBytes: number;
  /** A larger answer (a user with very many notifications) is not kept. */
  maxAnswerBytes: number;
  maxAgeMs: number;
}

export const POLL_CACHE_LIMITS: PollCacheLimits = {
  maxBytes: 8 * 1024 * 1024,
  maxAnswerBytes: 512 * 1024,
  maxAgeMs: 60_000,
};

/** One computation of a user's answer: stale once the user's notifications changed meanwhile. */
export interface PollTicket {
  readonly userId: string;
  stale: boolean;
}

interface Entry {
  body: Buffer;
  bornAt: number;
}

declare module "../context.js" {
  interface Deps {
    /** Answers of notification polls that found nothing New, per user (poll-cache.ts). */
    readonly notificationPolls: NotificationPollCache;
  }
}

export class NotificationPollCache {
  private readonly entries = new Map<string, Entry>();
  /** Computations under way, by user: only these need telling of a change. */
  private readonly inFlight = new Map<string, PollTicket[]>();
  private bytes = 0;

  constructor(
    private readonly limits: PollCacheLimits = POLL_CACHE_LIMITS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Listens to every instance's notification changes. */
  static listening(bus: EventBus, limits: PollCacheLimits = POLL_CACHE_LIMITS): NotificationPollCache {
    const cache = new NotificationPollCache(limits);
    bus.subscribeEverywhere("NotificationCreated", (event) => cache.changed([event.userId]));
    bus.subscribeEverywhere("NotificationsChanged", (event) => cache.changed(event.userIds));
    return cache;
  }

  /** The kept answer of `userId` while it is current (synchronous: the hit path has no promise). */
  peek(userId: string): Buffer | undefined {
    const entry = this.entries.get(userId);
    if (!entry) return undefined;
    if (this.now() - entry.bornAt <= this.limits.maxAgeMs) return entry.body;
    this.drop(userId, entry);
    return undefined;
  }

  /** Starts computing `userId`'s answer; end with `keep` (or `release` when it failed). */
  begin(userId: string): PollTicket {
    const ticket: PollTicket = { userId, stale: false };
    const list = this.inFlight.get(userId);
    if (list) list.push(ticket);
    else this.inFlight.set(userId, [ticket]);
    return ticket;
  }

  /** Keeps the answer unless the user's notifications changed since `begin`, or it is too large. */
  keep(ticket: PollTicket, body: Buffer): void {
    this.release(ticket);
    if (ticket.stale || body.length > this.limits.maxAnswerBytes || this.limits.maxBytes === 0) return;
    const old = this.entries.get(ticket.userId);
    if (old) this.drop(ticket.userId, old);
    for (const [userId, entry] of this.entries) {
      if (this.bytes + body.length <= this.limits.maxBytes) break;
      this.drop(userId, entry);
    }
    this.entries.set(ticket.userId, { body, bornAt: this.now() });
    this.bytes += body.length;
  }

  release(ticket: PollTicket): void {
    const list = this.inFlight.get(ticket.userId);
    if (!list) return;
    const at = list.indexOf(ticket);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) this.inFlight.delete(ticket.userId);
  }

  /** The users' notifications changed ("all": the whole store was replaced). */
  changed(userIds: readonly string[] | "all"): void {
    if (userIds === "all") {
      this.entries.clear();
      this.bytes = 0;
      for (const list of this.inFlight.values()) for (const ticket of list) ticket.stale = true;
      return;
    }
    for (const userId of userIds) {
      const entry = this.entries.get(userId);
      if (entry) this.drop(userId, entry);
      for (const ticket of this.inFlight.get(userId) ?? []) ticket.stale = true;
    }
  }

  stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private drop(userId: string, entry: Entry): void {
    this.entries.delete(userId);
    this.bytes -= entry.body.length;
  }
}
