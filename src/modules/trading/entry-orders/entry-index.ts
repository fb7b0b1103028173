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

export class EntryIndex {
  /** instrumentId*2 (+1 for sells) → [triggerRate, orderId] → order. */
  private readonly sides = new Map<number, BTree<Key, WatchedEntry>>();
  private readonly entries = new Map<number, WatchedEntry>();

  get size(): number {
    return this.entries.size;
  }

  has(orderId: number): boolean {
    return this.entries.has(orderId);
  }

  private side(instrumentId: number, isBuy: boolean, create: boolean): BTree<Key, WatchedEntry> | undefined {
    const key = instrumentId * 2 + (isBuy ? 0 : 1);
    let side = this.sides.get(key);
    if (!side && create) {
      side = new BTree<Key, WatchedEntry>(undefined, compareKeys);
      this.sides.set(key, side);
    }
    return side;
  }

  /** Watches an order (replacing what was watched for it). */
  add(entry: WatchedEntry): void {
    this.remove(entry.orderId);
    this.side(entry.instrumentId, entry.isBuy, true)!.set([entry.triggerRate, entry.orderId], entry);
    this.entries.set(entry.orderId, entry);
  }

  remove(orderId: number): void {
    const entry = this.entries.get(orderId);
    if (!entry) return;
    this.entries.delete(orderId);
    this.side(entry.instrumentId, entry.isBuy, false)?.delete([entry.triggerRate, orderId]);
  }

  /** Applies a new bid/ask: every order reached leaves the index and is returned (each once). */
  update(instrumentId: number, bid: number, ask: number): WatchedEntry[] {
    const reached: WatchedEntry[] = [];
    const buys = this.side(instrumentId, true, false);
    if (buys) {
      // Buys whose trigger is at or above the ask, highest first.
      for (let k = buys.maxKey(); k !== undefined && k[0] >= ask; k = buys.nextLowerKey(k)) reached.push(buys.get(k)!);
    }
    const sells = this.side(instrumentId, false, false);
    if (sells) {
      // Sells whose trigger is at or below the bid, lowest first.
      for (let k = sells.minKey(); k !== undefined && k[0] <= bid; k = sells.nextHigherKey(k))
        reached.push(sells.get(k)!);
    }
    for (const e of reached) this.remove(e.orderId);
    return reached;
  }
}
