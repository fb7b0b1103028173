import { BTree } from "../../../core/sorted-tree.js";

/**
 * The resting entry (market-if-touched) orders, ordered by trigger price per instrument and side,
 * so that one price update costs O(log n + orders reached), as the stop-losses' index does
 * (../trigger-index.ts). A buy is reached when the ask falls to its trigger or below (it would
 * open at the ask), a sell when the bid rises to its trigger or above.
 */
export interface WatchedEntry {
  orderId: number;
  instrumentId: number;
  isBuy: boolean;
  triggerRate: number;
}

type Key = [number, number];
const compareKeys = (a: Key, b: Key) => a[0] - b[0] || a[1] - b[1];

/** One instrument's buys or sells, with the trigger nearest the price cached (most ticks reach none). */
class Side {
  readonly tree = new BTree<Key, WatchedEntry>(undefined, compareKeys);
  /** The highest buy trigger or the lowest sell trigger; undefined = to be read from the tree. */
  nearest: number | undefined;

  constructor(readonly isBuy: boolean) {}

  add(e: WatchedEntry): void {
    this.tree.set([e.triggerRate, e.orderId], e);
    if (this.nearest !== undefined && (this.isBuy ? e.triggerRate > this.nearest : e.triggerRate < this.nearest)) {
      this.nearest = e.triggerRate;
    }
  }

  delete(e: WatchedEntry): void {
    this.tree.delete([e.triggerRate, e.orderId]);
    if (e.triggerRate === this.nearest) this.nearest = undefined;
  }

  /** The nearest trigger: ±Infinity when empty (nothing can be reached). */
  best(): number {
    if (this.nearest === undefined) {
      const key = this.isBuy ? this.tree.maxKey() : this.tree.minKey();
      this.nearest = key ? key[0] : this.isBuy ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    }
    return this.nearest;
  }
}

/** What a tick that reaches nothing returns (shared: most ticks allocate nothing). */
const NONE: readonly WatchedEntry[] = Object.freeze([]);

interface Instrument {
  buys: Side;
  sells: Side;
}

export class EntryIndex {
  /** instrumentId → its buys and sells by [triggerRate, orderId]. */
  private readonly instruments = new Map<number, Instrument>();
  private readonly entries = new Map<number, WatchedEntry>();

  get size(): number {
    return this.entries.size;
  }

  has(orderId: number): boolean {
    return this.entries.has(orderId);
  }

  private side(instrumentId: number, isBuy: boolean): Side {
    let instrument = this.instruments.get(instrumentId);
    if (!instrument) {
      instrument = { buys: new Side(true), sells: new Side(false) };
      this.instruments.set(instrumentId, instrument);
    }
    return isBuy ? instrument.buys : instrument.sells;
  }

  /** Watches an order (replacing what was watched for it). */
  add(entry: WatchedEntry): void {
    this.remove(entry.orderId);
    this.side(entry.instrumentId, entry.isBuy).add(entry);
    this.entries.set(entry.orderId, entry);
  }

  remove(orderId: number): void {
    const entry = this.entries.get(orderId);
    if (!entry) return;
    this.entries.delete(orderId);
    this.side(entry.instrumentId, entry.isBuy).delete(entry);
  }

  /**
   * Applies a new bid/ask: every order reached leaves the index and is returned (each once). A
   * tick that reaches none costs two comparisons per side; one that does, O(log n + reached).
   */
  update(instrumentId: number, bid: number, ask: number): readonly WatchedEntry[] {
    const instrument = this.instruments.get(instrumentId);
    if (instrument === undefined) return NONE;
    const { buys, sells } = instrument;
    const buyHit = (buys.nearest ?? buys.best()) >= ask;
    const sellHit = (sells.nearest ?? sells.best()) <= bid;
    if (!buyHit && !sellHit) return NONE;
    const reached: WatchedEntry[] = [];
    if (buyHit) {
      // Buys whose trigger is at or above the ask, highest first.
      const t = buys.tree;
      for (let k = t.maxKey(); k !== undefined && k[0] >= ask; k = t.nextLowerKey(k)) reached.push(t.get(k)!);
    }
    if (sellHit) {
      // Sells whose trigger is at or below the bid, lowest first.
      const t = sells.tree;
      for (let k = t.minKey(); k !== undefined && k[0] <= bid; k = t.nextHigherKey(k)) reached.push(t.get(k)!);
    }
    for (const e of reached) this.remove(e.orderId);
    return reached;
  }
}
