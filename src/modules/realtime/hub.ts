import type { UserActor } from "../../core/actor.js";
import type { KeyPairRevoked, OAuthGrantRevoked } from "../../core/events.js";
import type { Quote } from "../../core/market.js";
import { MemoryPresence, type Presence } from "../../infra/presence/presence.js";
import type { Deps } from "../context.js";
import type { Outbox, RateSlot } from "./outbox.js";
import type { PositionUpdates } from "./position-updates.js";
import { NOTIFICATION_TYPE, PRICE_ALERT_TYPE, priceAlertMessageOf, privateMessageOf } from "./private-events.js";
import { message } from "./protocol.js";
import { RateTick, rateMask } from "./rates.js";
import { hearsPriceAlerts } from "./topics.js";

/** What the hub knows of one socket. */
export interface Subscriber {
  readonly outbox: Outbox;
  /** Set once authenticated. */
  readonly userId: string | undefined;
  readonly actor: UserActor | undefined;
  readonly private: boolean;
  readonly notifications: boolean;
  /** A credential of its user was revoked: the socket ends if it authenticated with it. */
  credentialRevoked(event: KeyPairRevoked | OAuthGrantRevoked): void;
}

/**
 * The sockets this process holds and who listens to what: by instrument for rates, by user for
 * private and notification events. Fed by the market's ticks (ticked here or applied from the
 * leader, so every instance pushes the one price stream) and by `subscribeEverywhere` events, so
 * a socket on any instance hears its user's orders and notifications.
 */
export class RealtimeHub {
  /** @param presence the per-user socket count: this process's, or every instance's (Redis). */
  constructor(private readonly presence: Presence = new MemoryPresence()) {}

  private readonly sockets = new Set<Subscriber>();
  /** Per instrument, its subscribers' slots (where each socket's unsent rate of it waits). */
  private readonly byInstrument = new Map<number, Map<Subscriber, RateSlot>>();
  /** `instrument:<id>`, made once per instrument. */
  private readonly topics = new Map<number, string>();
  private readonly byUser = new Map<string, Set<Subscriber>>();
  /** The last quote pushed per subscribed instrument: deltas carry what moved since. */
  private readonly lastQuote = new Map<number, Quote>();

  /** Open sockets on this instance (for a metrics gauge). */
  get connections(): number {
    return this.sockets.size;
  }

  /** What waits for slow clients, summed over the sockets (for gauges and tests). */
  backlog(): { waitingEvents: number; waitingRates: number; bufferedBytes: number } {
    let waitingEvents = 0;
    let waitingRates = 0;
    let bufferedBytes = 0;
    for (const socket of this.sockets) {
      waitingEvents += socket.outbox.waiting;
      waitingRates += socket.outbox.waitingRates;
      bufferedBytes += socket.outbox.buffered;
    }
    return { waitingEvents, waitingRates, bufferedBytes };
  }

  /** Whether a socket of the user listens to `private` here. */
  listensPrivate(userId: string): boolean {
    for (const socket of this.byUser.get(userId) ?? []) if (socket.private) return true;
    return false;
  }

  /** Counts an authenticating socket against its user's cap (on every instance with Redis). */
  claim(userId: string, connectionId: string, cap: number): Promise<boolean> {
    return this.presence.claim(userId, connectionId, cap);
  }

  release(userId: string, connectionId: string): void {
    this.presence.release(userId, connectionId).catch(() => {});
  }

  close(): Promise<void> {
    return this.presence.close();
  }

  /** Authenticated sockets of one user on this instance. */
  connectionsOf(userId: string): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  add(socket: Subscriber): void {
    this.sockets.add(socket);
  }

  authenticated(socket: Subscriber, userId: string): void {
    const set = this.byUser.get(userId) ?? new Set();
    set.add(socket);
    this.byUser.set(userId, set);
  }

  /** Starts pushing an instrument's rates, from its current quote on. */
  watch(socket: Subscriber, instrumentId: number, current: Quote): void {
    let slots = this.byInstrument.get(instrumentId);
    if (!slots) {
      slots = new Map();
      this.byInstrument.set(instrumentId, slots);
    }
    slots.set(socket, socket.outbox.slot(instrumentId, this.topicOf(instrumentId)));
    if (!this.lastQuote.has(instrumentId)) this.lastQuote.set(instrumentId, current);
  }

  /** The last quote pushed for an instrument (a snapshot starts from it). */
  lastPushed(instrumentId: number): Quote | undefined {
    return this.lastQuote.get(instrumentId);
  }

  unwatch(socket: Subscriber, instrumentId: number): void {
    const slots = this.byInstrument.get(instrumentId);
    if (!slots) return;
    slots.delete(socket);
    socket.outbox.dropRate(instrumentId);
    if (slots.size === 0) {
      this.byInstrument.delete(instrumentId);
      this.lastQuote.delete(instrumentId);
    }
  }

  remove(socket: Subscriber, instrumentIds: Iterable<number>): void {
    this.sockets.delete(socket);
    for (const id of instrumentIds) this.unwatch(socket, id);
    if (socket.userId) {
      const set = this.byUser.get(socket.userId);
      set?.delete(socket);
      if (set?.size === 0) this.byUser.delete(socket.userId);
    }
  }

  private topicOf(instrumentId: number): string {
    let topic = this.topics.get(instrumentId);
    if (topic === undefined) {
      topic = `instrument:${instrumentId}`;
      this.topics.set(instrumentId, topic);
    }
    return topic;
  }

  /**
   * One tick: each subscribed instrument's delta, serialized once and handed to every subscriber's
   * slot (no allocation per subscriber: a slot is reused tick after tick).
   */
  tick(quotes: readonly Quote[]): void {
    if (this.byInstrument.size === 0) return;
    for (const quote of quotes) {
      const slots = this.byInstrument.get(quote.instrumentId);
      if (!slots) continue;
      const previous = this.lastQuote.get(quote.instrumentId);
      // A quote older than the one pushed (a late broadcast) is not sent: rates never go back.
      if (previous && previous.priceRateId >= quote.priceRateId) continue;
      this.lastQuote.set(quote.instrumentId, quote);
      const tick = new RateTick(quote, this.topicOf(quote.instrumentId), rateMask(quote, previous));
      for (const slot of slots.values()) slot.push(tick);
    }
  }

  /** Tells every socket of the event's user that one of its credentials was revoked. */
  credentialRevoked(event: KeyPairRevoked | OAuthGrantRevoked): void {
    for (const socket of this.byUser.get(event.userId) ?? []) socket.credentialRevoked(event);
  }

  /** A message for every socket of `userId` that listens to the topic (and, if given, passes `to`). */
  toUser(
    userId: string,
    topic: "private" | "notifications",
    type: string,
    content: unknown,
    to?: (socket: Subscriber) => boolean,
  ): void {
    const set = this.byUser.get(userId);
    if (!set) return;
    let serialized: string | undefined;
    for (const socket of set) {
      if (!socket[topic] || (to && !to(socket))) continue;
      serialized ??= message(topic, type, content);
      socket.outbox.push(serialized);
    }
  }
}

declare module "../context.js" {
  interface Deps {
    /** Realtime: the WebSocket sessions this process holds and their subscriptions (docs/realtime.md). */
    readonly realtime: RealtimeHub;
    /** Realtime: the trailing stops watched for `Trading.PositionUpdate`. */
    readonly positionUpdates: PositionUpdates;
  }
}

/** Feeds the hub from the market and the bus (`createDeps`). */
export function registerRealtimeFeeds(deps: Deps): void {
  const hub = deps.realtime;
  deps.metrics.gauge("realtime_connections", "WebSocket connections this instance holds", () => hub.connections);
  deps.market.onTick((quotes) => hub.tick(quotes));
  deps.bus.subscribeEverywhere("OrderExecuted", (event) => {
    // Built only for a user with a socket on the private topic here: most orders have none (0183).
    const listens = hub.listensPrivate(event.userId);
    if (listens) {
      const { type, content } = privateMessageOf(event.order);
      hub.toUser(event.userId, "private", type, content);
    }
    const order = event.order;
    if (order.close?.fullyClosed) deps.positionUpdates.forget(order.positionId);
    else if (!order.close && order.isTslEnabled && listens) {
      deps.positionUpdates.watch({
        userId: event.userId,
        positionId: order.positionId,
        cid: order.cid,
        instrumentId: order.instrumentId,
        isBuy: order.isBuy,
        takeProfitRate: order.takeProfitRate,
        stopLossRate: order.stopLossRate,
      });
    }
  });
  deps.bus.subscribeEverywhere("PositionExitsChanged", (event) => deps.positionUpdates.exitsChanged(deps, event));
  deps.bus.subscribeEverywhere("PriceAlertTriggered", (event) =>
    hub.toUser(event.userId, "private", PRICE_ALERT_TYPE, priceAlertMessageOf(event), (s) => hearsPriceAlerts(s.actor)),
  );
  deps.bus.subscribeEverywhere("KeyPairRevoked", (event) => hub.credentialRevoked(event));
  deps.bus.subscribeEverywhere("OAuthGrantRevoked", (event) => hub.credentialRevoked(event));
  deps.bus.subscribeEverywhere("NotificationCreated", (event) =>
    hub.toUser(event.userId, "notifications", NOTIFICATION_TYPE, event.item),
  );
}

/** After the triggers' listener (`createDeps` registers it last): trailing stops have moved. */
export function registerPositionUpdates(deps: Deps): void {
  deps.market.onTick(() => deps.positionUpdates.afterTick(deps));
}
