import { randomUUID } from "node:crypto";
import { envelope, envelopeBytes, message } from "./protocol.js";
import { RATE_TYPE, type RateFields, type RateTick } from "./rates.js";

/** What the outbox writes to: a WebSocket, seen only through what backpressure needs. */
export interface Sink {
  /** A text frame (given as a string or as its UTF-8 bytes). */
  send(data: string | Buffer, done: (error?: Error) => void): void;
  /** Bytes written and not yet taken by the client (the socket's buffers included). */
  readonly bufferedAmount: number;
  /** Closes the socket for a slow consumer (with a close frame, then for good). */
  overflow(code: number, reason: string): void;
}

/**
 * One socket's place for one instrument's rates: made when the socket subscribes, reused by every
 * tick. While a rate waits unsent (`queued`), a newer tick merges into it (conflation), so what a
 * slow client costs is one slot per subscribed instrument, whatever the number of ticks.
 */
export class RateSlot {
  readonly kind = "rate";
  queued = false;
  /** The newest tick waiting, and the sides moved in every tick merged since the last send. */
  tick: RateTick | undefined = undefined;
  mask = 0;
  /**
   * A rate given as fields (a Snapshot, which stays one when deltas merge into it, only fresher):
   * the caller's object until a newer rate merges in, then a copy (`owned`).
   */
  fields: RateFields | undefined = undefined;
  owned = false;
  serialized: string | undefined = undefined;
  type = RATE_TYPE;

  constructor(
    readonly outbox: Outbox,
    readonly instrumentId: number,
    readonly topic: string,
  ) {}

  /** A tick of the instrument: queued, or merged into the rate waiting. */
  push(tick: RateTick): void {
    if (!this.queued) {
      this.tick = tick;
      this.mask = tick.mask;
      this.outbox.queueRate(this);
    } else if (this.fields) this.merge(tick.fields);
    else {
      this.tick = tick;
      this.mask |= tick.mask;
    }
  }

  /** Fields newer than what waits: they replace the older ones, the rest stay. */
  merge(fields: RateFields): void {
    if (!this.fields) {
      // A tick waits: its merged delta becomes fields.
      this.fields = this.tick ? { ...this.tick.conflatedFields(this.mask) } : {};
      this.owned = true;
      this.tick = undefined;
    }
    if (this.owned) Object.assign(this.fields, fields);
    else {
      this.fields = { ...this.fields, ...fields };
      this.owned = true;
    }
    this.serialized = undefined;
  }

  /** The message to send now; the slot is then free for the next tick. */
  take(): string | Buffer {
    const text = this.fields
      ? (this.serialized ?? message(this.topic, this.type, this.fields, randomUUID()))
      : this.tick!.conflated(this.mask);
    this.reset();
    return text;
  }

  reset(): void {
    this.queued = false;
    this.tick = undefined;
    this.mask = 0;
    this.fields = undefined;
    this.owned = false;
    this.serialized = undefined;
    this.type = RATE_TYPE;
  }
}

type Item = { kind: "frame"; frame: string } | { kind: "message"; json: string } | RateSlot;

export const SLOW_CONSUMER_CLOSE = 1008;
/** Messages per pushed frame at most (an envelope holds several; upstream's usually one). */
const BATCH_MESSAGES = 64;
/** The messages of the frame being built: one array for every outbox (a flush runs to its end). */
const batch: (string | Buffer)[] = [];

/**
 * The frame of the batch: a tick's rates come as bytes encoded once for every subscriber, and are
 * copied into the frame as they are; other messages (replies' neighbours, events) are strings.
 */
function frameOf(messages: (string | Buffer)[]): string | Buffer {
  let strings = 0;
  for (const m of messages) if (typeof m === "string") strings += 1;
  if (strings === messages.length) return envelope(messages as string[]);
  if (strings === 0) return envelopeBytes(messages as Buffer[]);
  return envelopeBytes(messages.map((m) => (typeof m === "string" ? Buffer.from(m) : m)));
}

/**
 * One socket's outgoing frames, in order. Replies and private / notification messages are kept
 * until sent, never dropped: past `maxQueued` of them the socket is closed (SLOW_CONSUMER_CLOSE)
 * and the client recovers by REST. Rates are conflated: while the client does not take what was
 * written (more than `bufferBytes` in flight) a newer rate of an instrument merges into the unsent
 * one, so memory stays one slot per subscribed instrument.
 */
export class Outbox {
  private readonly queue: Item[] = [];
  private head = 0;
  private readonly slots = new Map<number, RateSlot>();
  private queuedEvents = 0;
  private queuedRates = 0;
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
    return this.queuedRates;
  }

  reply(frame: string): void {
    this.enqueue({ kind: "frame", frame });
  }

  push(json: string): void {
    this.enqueue({ kind: "message", json });
  }

  /** The slot of an instrument's rates (made on first use, kept until `dropRate`). */
  slot(instrumentId: number, topic: string): RateSlot {
    let slot = this.slots.get(instrumentId);
    if (!slot) {
      slot = new RateSlot(this, instrumentId, topic);
      this.slots.set(instrumentId, slot);
    }
    return slot;
  }

  /**
   * A rate (or a Snapshot) of an instrument given as fields. While one waits unsent, the newer
   * merges into it: the fields it carries replace the older ones, the rest stay.
   */
  rate(instrumentId: number, topic: string, fields: RateFields, serialized?: string, type: string = RATE_TYPE): void {
    if (this.closed) return;
    const slot = this.slot(instrumentId, topic);
    if (slot.queued) {
      slot.merge(fields);
      if (type !== RATE_TYPE) slot.type = type;
      return;
    }
    slot.fields = fields;
    slot.serialized = serialized;
    slot.type = type;
    this.queueRate(slot);
  }

  /** Forgets an instrument's slot and its unsent rate (after Unsubscribe). */
  dropRate(instrumentId: number): void {
    const slot = this.slots.get(instrumentId);
    if (!slot) return;
    this.slots.delete(instrumentId);
    if (slot.queued) this.queuedRates -= 1;
    slot.reset();
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.head = 0;
    this.queuedRates = 0;
    for (const slot of this.slots.values()) slot.reset();
    this.slots.clear();
  }

  /** A slot that had nothing waiting has a rate now: it takes its turn. */
  queueRate(slot: RateSlot): void {
    if (this.closed) return;
    slot.queued = true;
    this.queuedRates += 1;
    this.queue.push(slot);
    this.schedule();
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
    queueMicrotask(this.flushTask);
  }

  private readonly flushTask = () => {
    this.scheduled = false;
    this.flush();
  };

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
      while (batch.length < BATCH_MESSAGES && this.head < this.queue.length) {
        const item = this.queue[this.head]!;
        if (item.kind === "frame") break;
        this.take();
        if (item.kind === "message") {
          this.queuedEvents -= 1;
          batch.push(item.json);
          continue;
        }
        // Unsubscribed meanwhile (and perhaps subscribed again: a new slot, queued on its own).
        if (!item.queued || this.slots.get(item.instrumentId) !== item) continue;
        this.queuedRates -= 1;
        batch.push(item.take());
      }
      if (batch.length > 0) {
        const frame = frameOf(batch);
        batch.length = 0;
        this.sink.send(frame, this.sent);
      }
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
