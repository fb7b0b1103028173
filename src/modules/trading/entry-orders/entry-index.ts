import { type Resting, Side, Tops } from "./entry-side.js";

/**
 * The resting entry (market-if-touched) orders, per instrument and side, nearest trigger first
 * (decision 0161). A buy is reached when the ask falls to its trigger or below (it would open at
 * the ask), a sell when the bid rises to its trigger or above.
 *
 * Each side is a binary heap of (key, orderId) pairs in one Float64Array, its top the nearest
 * order (the highest buy trigger, the lowest sell trigger; equal triggers: the older id first).
 * A removed order leaves its slot behind: the slot is dropped when it comes to the top, or when
 * such slots outnumber the live ones the side is rebuilt (O(n), so O(1) per removal amortized).
 * The top is always live, and mirrored per instrument id in one array: a tick that reaches nothing
 * reads two numbers and allocates nothing; each order reached costs O(log n).
 */
export interface WatchedEntry {
  orderId: number;
  instrumentId: number;
  isBuy: boolean;
  triggerRate: number;
}

interface Instrument {
  buys: Side;
  sells: Side;
}

/** What a tick that reaches nothing returns (shared: most ticks allocate nothing). */
const NONE: readonly WatchedEntry[] = Object.freeze([]);

export class EntryIndex {
  /** instrumentId → its buys and sells. */
  private readonly instruments = new Map<number, Instrument>();
  private readonly entries = new Map<number, Resting>();
  private readonly tops = new Tops();
  /** `tops.keys`, read by every tick (one load fewer). */
  private topKeys = this.tops.keys;

  get size(): number {
    return this.entries.size;
  }

  /** Heap slots held, removed orders not yet dropped included (at most about twice the size). */
  get slots(): number {
    let n = 0;
    for (const i of this.instruments.values()) n += i.buys.slots + i.sells.slots;
    return n;
  }

  has(orderId: number): boolean {
    return this.entries.has(orderId);
  }

  /** Forgets every order (the sandbox's world reset, before the index is loaded again). */
  clear(): void {
    this.entries.clear();
    this.instruments.clear();
    this.topKeys.fill(Number.POSITIVE_INFINITY);
  }

  private side(instrumentId: number, isBuy: boolean): Side {
    let instrument = this.instruments.get(instrumentId);
    if (!instrument) {
      const slot = this.tops.cover(instrumentId) ? 2 * instrumentId : -1;
      this.topKeys = this.tops.keys;
      instrument = {
        buys: new Side(instrumentId, true, this.entries, this.tops, slot),
        sells: new Side(instrumentId, false, this.entries, this.tops, slot < 0 ? -1 : slot + 1),
      };
      this.instruments.set(instrumentId, instrument);
    }
    return isBuy ? instrument.buys : instrument.sells;
  }

  /** Watches an order (replacing what was watched for it). */
  add(entry: WatchedEntry): void {
    this.remove(entry.orderId);
    const side = this.side(entry.instrumentId, entry.isBuy);
    const key = side.keyOf(entry.triggerRate);
    this.entries.set(entry.orderId, { side, key });
    side.push(key, entry.orderId);
  }

  remove(orderId: number): void {
    const order = this.entries.get(orderId);
    if (!order) return;
    this.entries.delete(orderId);
    order.side.forget();
  }

  /**
   * Applies a new bid/ask: every order reached leaves the index and is returned (each once), the
   * buys highest trigger first, then the sells lowest first (equal triggers: the older order
   * first). A tick that reaches none costs one map read and two comparisons; one that does,
   * O(log n) per order reached.
   */
  update(instrumentId: number, bid: number, ask: number): readonly WatchedEntry[] {
    // In keys: a buy is reached when −trigger ≤ −ask, a sell when trigger ≤ bid.
    const tops = this.topKeys;
    const i = 2 * instrumentId;
    if (i < tops.length && instrumentId >>> 0 === instrumentId && !(tops[i]! <= -ask) && !(tops[i + 1]! <= bid)) {
      return NONE;
    }
    const instrument = this.instruments.get(instrumentId);
    if (instrument === undefined) return NONE;
    const { buys, sells } = instrument;
    if (!(buys.top <= -ask) && !(sells.top <= bid)) return NONE;
    const reached: WatchedEntry[] = [];
    this.reach(buys, -ask, reached);
    this.reach(sells, bid, reached);
    return reached;
  }

  private reach(side: Side, limit: number, reached: WatchedEntry[]): void {
    for (;;) {
      const key = side.top;
      // The top is live, so its id maps to it; taking it off, the index forgets it before the
      // next top is checked (a second slot of the same order is then seen as stale).
      if (!(key <= limit)) return;
      const orderId = side.topId();
      this.entries.delete(orderId);
      side.popTop();
      reached.push({
        orderId,
        instrumentId: side.instrumentId,
        isBuy: side.isBuy,
        triggerRate: side.isBuy ? -key : key,
      });
    }
  }
}
