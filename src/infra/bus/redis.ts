import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { DomainEvent } from "../../core/events.js";
import { MemoryEventBus } from "./memory.js";

/** How long one broadcast may wait for Redis's answer before it is given up (and logged). */
export const BROADCAST_TIMEOUT_MS = 1000;

/** The channel of a deployment: `<REDIS_NAMESPACE>:events`. */
export const eventsChannel = (namespace: string) => `${namespace}:events`;

interface Envelope {
  origin: string;
  events: DomainEvent[];
}

/**
 * The bus for several instances: local subscribers run as with the memory bus, and the events
 * are also published on a Redis channel, where every other instance runs its `everywhere`
 * subscribers. Delivery to other instances is best effort (Redis pub/sub): what must not be
 * lost is written in the database by the publishing instance, never carried only by the bus.
 * Redis being down never stops the server: it starts and serves anyway (local subscribers keep
 * running), logs one warning per outage, and resubscribes by itself when Redis returns.
 */
export class RedisEventBus extends MemoryEventBus {
  private readonly instance = randomUUID();
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private healthy = true;
  /** False after a broadcast failed, until one succeeds (the failure is logged once). */
  private broadcasting = true;

  private constructor(
    url: string,
    private readonly log: Logger,
    private readonly channel: string,
    private readonly countError: () => void,
  ) {
    super((error, event) => log.error({ err: error, event: event.type }, "event handler failed"));
    const retryStrategy = (attempt: number) => Math.min(attempt * 200, 2000);
    this.publisher = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      // A Redis that accepts but never answers (hung, or a link that drops packets) must not
      // pile up broadcasts without bound: each is given up after this long (decision 0107).
      commandTimeout: BROADCAST_TIMEOUT_MS,
      retryStrategy,
    });
    this.subscriber = new Redis(url, { lazyConnect: true, retryStrategy });
    for (const client of [this.publisher, this.subscriber]) {
      client.on("error", (error) => {
        countError();
        if (this.healthy)
          log.warn({ err: error }, "event bus: Redis unavailable; other instances miss events until it returns");
        this.healthy = false;
      });
      client.on("ready", () => {
        if (!this.healthy) log.info("event bus: Redis reachable again");
        this.healthy = true;
      });
    }
    this.subscriber.on("message", (_channel: string, message: string) => {
      void this.receive(message);
    });
  }

  /** `countError` is told of every connection or command error (the metrics count them). */
  static async connect(
    url: string,
    log: Logger,
    channel = eventsChannel("sta"),
    countError: () => void = () => {},
  ): Promise<RedisEventBus> {
    const bus = new RedisEventBus(url, log, channel, countError);
    // Not awaited to success: a Redis that is down now is retried in the background, and the
    // subscription is remade on every reconnect (ioredis autoResubscribe).
    await Promise.allSettled([bus.publisher.connect(), bus.subscriber.connect()]);
    bus.subscriber.subscribe(bus.channel).catch(() => {});
    return bus;
  }

  /**
   * Runs the local subscribers, then hands the events to Redis without waiting for its answer:
   * a write's request never waits on Redis, so a hung Redis costs no request any time (found by
   * test/faults/redis.test.ts: an awaited PUBLISH to a Redis that never answered held every
   * write's answer forever). Broadcasts leave in publishing order (one connection); one that
   * fails or times out is logged, once per outage.
   */
  override async publish(events: readonly DomainEvent[]): Promise<void> {
    await super.publish(events);
    if (events.length === 0) return;
    const envelope: Envelope = { origin: this.instance, events: [...events] };
    this.publisher.publish(this.channel, JSON.stringify(envelope)).then(
      () => {
        if (!this.broadcasting) this.log.info("event bus: broadcasting again");
        this.broadcasting = true;
      },
      (error: unknown) => {
        this.countError();
        // The change itself is committed; other instances catch up through their caches' TTLs.
        if (this.broadcasting) {
          this.log.warn(
            { err: error, events: events.map((e) => e.type) },
            "event bus: could not broadcast; other instances miss events until Redis answers again",
          );
        }
        this.broadcasting = false;
      },
    );
  }

  private async receive(message: string): Promise<void> {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(message) as Envelope;
    } catch {
      this.log.warn("event bus: ignored a malformed message");
      return;
    }
    if (envelope.origin === this.instance || !Array.isArray(envelope.events)) return;
    await this.everywhere.run(envelope.events);
  }

  override async close(): Promise<void> {
    await super.close();
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }
}
