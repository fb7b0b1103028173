import { randomUUID } from "node:crypto";
import { envelope, message } from "./protocol.js";
import { RATE_TYPE, type RateFields } from "./rates.js";

/** What the outbox writes to: a WebSocket, seen only through what backpressure needs. */
export interface Sink {
  send(data: string, done: (error?: Error) => void): void;
  /** Bytes written and not yet taken by the client (the socket's buffers included). */
  readonly bufferedAmount: number;
  /** Closes the socket for a slow consumer (with a close frame, then for good). */
  overflow(code: number, reason: string): void;
}

/** A rate not sent yet: a newer tick of its instrument merges into it (conflation). */
interface PendingRate {
  instrumentId: number;
  topic: string;
  /** A Snapshot stays one when a delta merges into it (it only gets fresher). */
  type: string;
  /**
   * The caller's object, shared by every subscriber of the tick, until a newer rate merges in:
   * only then is it copied (`owned`), so a socket that keeps up allocates nothing per rate.
   */
  fields: RateFields;
  owned: boolean;
  /** The message as built once for every subscriber; dropped when a newer tick merges in. */
  serialized: string | undefined;
}

type Item = { kind: "frame"; frame: string } | { kind: "message"; json: string } | { kind: "rate"; rate: PendingRate };

export const SLOW_CONSUMER_CLOSE = 1008;
/** Messages per pushed frame at most (an envelope holds several; upstream's usually one). */
const BATCH_MESSAGES = 64;

/**
 * One socket's outgoing frames, in order. Replies and private / notification messages are kept
 * until sent, never dropped: past `maxQueued` of them the socket is closed (SLOW_CONSUMER_CLOSE)
 * and the client recovers by REST. Rates are conflated: while the client does not take what was
 * written (more than `bufferBytes` in flight) a newer rate of an instrument replaces the unsent
 * one, field by field, so memory stays one pending rate per subscribed instrument.
 */
export class Outbox {
  private readonly queue: Item[] = [];
  private head = 0;
  private readonly rates = new Map<number, PendingRate>();
  private queuedEvents = 0;
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly sink: Sink,
    private readonly bufferBytes: number,
    private readonly maxQueued: number,
  ) {}

  /** How many replies and events wait (rates not counted). */
  get waiting(): number {
    return this.queuedEvents;
  }

  /** Bytes written to the socket and not yet taken by the client. */
  get buffered(): number {
    return this.sink.bufferedAmount;
  }

  /** Instruments with a rate waiting. */
  get waitingRates(): number {
    return this.rates.size;
  }

  reply(frame: string): void {
    this.enqueue({ kind: "frame", frame });
  }

  push(json: string): void {
    this.enqueue({ kind: "message", json });
  }

  /**
   * A rate (or a Snapshot) of an instrument. While one waits unsent, the newer merges into it:
   * the fields it carries replace the older ones, the rest stay.
   */
  rate(instrumentId: number, topic: string, fields: RateFields, serialized?: string, type: string = RATE_TYPE): void {
    if (this.closed) return;
    const pending = this.rates.get(instrumentId);
    if (pending) {
      if (pending.owned) Object.assign(pending.fields, fields);
      else {
        pending.fields = { ...pending.fields, ...fields };
        pending.owned = true;
      }
      if (type !== RATE_TYPE) pending.type = type;
      pending.serialized = undefined;
      return;
    }
    const rate: PendingRate = { instrumentId, topic, type, fields, owned: false, serialized };
    this.rates.set(instrumentId, rate);
    this.queue.push({ kind: "rate", rate });
    this.schedule();
  }

  /** Forgets an instrument's unsent rate (after Unsubscribe). */
  dropRate(instrumentId: number): void {
    const pending = this.rates.get(instrumentId);
    if (!pending) return;
    this.rates.delete(instrumentId);
    pending.fields = {};
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.head = 0;
    this.rates.clear();
  }

  private enqueue(item: Item): void {
    if (this.closed) return;
    this.queuedEvents += 1;
    this.queue.push(item);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private readonly sent = (error?: Error) => {
    if (!error && this.head < this.queue.length && this.sink.bufferedAmount < this.bufferBytes) this.schedule();
  };

  /** Writes what waits while the client keeps up; the rest waits for a write to complete. */
  private flush(): void {
    while (!this.closed && this.head < this.queue.length && this.sink.bufferedAmount < this.bufferBytes) {
      const first = this.queue[this.head]!;
      if (first.kind === "frame") {
        this.take();
        this.queuedEvents -= 1;
        this.sink.send(first.frame, this.sent);
        continue;
      }
      const batch: string[] = [];
      while (batch.length < BATCH_MESSAGES && this.head < this.queue.length) {
        const item = this.queue[this.head]!;
        if (item.kind === "frame") break;
        this.take();
        if (item.kind === "message") {
          this.queuedEvents -= 1;
          batch.push(item.json);
          continue;
        }
        const rate = item.rate;
        if (this.rates.get(rate.instrumentId) !== rate) continue; // unsubscribed meanwhile
        this.rates.delete(rate.instrumentId);
        batch.push(rate.serialized ?? message(rate.topic, rate.type, rate.fields, randomUUID()));
      }
      if (batch.length > 0) this.sink.send(envelope(batch), this.sent);
    }
    // Only what the client did not take counts: a burst it keeps up with never closes it.
    if (!this.closed && this.queuedEvents > this.maxQueued) {
      this.close();
      this.sink.overflow(
        SLOW_CONSUMER_CLOSE,
        `Slow consumer: more than ${this.maxQueued} events waiting; reconnect and read state over REST`,
      );
    }
  }

  private take(): void {
    this.head += 1;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }
}
