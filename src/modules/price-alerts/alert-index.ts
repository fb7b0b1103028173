import { BTree } from "../../core/sorted-tree.js";

export type AlertDirection = "above" | "below";

export interface WatchedAlert {
  alertId: string;
  instrumentId: number;
  targetPrice: number;
  /** `above`: fires when the bid rises to the target; `below`: when it falls to it. */
  direction: AlertDirection;
}

type Key = [number, string];
const compareKeys = (a: Key, b: Key) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);

interface Book {
  /** Targets above the bid, lowest first: the first ones reached by a rise. */
  above: BTree<Key, WatchedAlert>;
  /** Targets below the bid, highest first when read from the end. */
  below: BTree<Key, WatchedAlert>;
}

/**
 * The active price alerts, ordered by target per instrument and direction, so that one price costs
 * O(log n + alerts fired) however many alerts are watched: a rise can only reach the lowest
 * targets above, a fall the highest below. Fired alerts leave the index at once.
 */
export class AlertIndex {
  private readonly books = new Map<number, Book>();
  private readonly watched = new Map<string, WatchedAlert>();

  get size(): number {
    return this.watched.size;
  }

  has(alertId: string): boolean {
    return this.watched.has(alertId);
  }

  /** Watches an alert, replacing what was watched under its id. */
  add(alert: WatchedAlert): void {
    this.remove(alert.alertId);
    let book = this.books.get(alert.instrumentId);
    if (!book) {
      book = { above: new BTree<Key, WatchedAlert>(undefined, compareKeys), below: new BTree(undefined, compareKeys) };
      this.books.set(alert.instrumentId, book);
    }
    book[alert.direction].set([alert.targetPrice, alert.alertId], alert);
    this.watched.set(alert.alertId, alert);
  }

  remove(alertId: string): void {
    const alert = this.watched.get(alertId);
    if (!alert) return;
    this.books.get(alert.instrumentId)?.[alert.direction].delete([alert.targetPrice, alertId]);
    this.watched.delete(alertId);
  }

  /** The alerts this bid reaches, removed from the index. */
  update(instrumentId: number, bid: number): WatchedAlert[] {
    const book = this.books.get(instrumentId);
    if (!book) return [];
    const fired: WatchedAlert[] = [];
    for (let key = book.above.minKey(); key && key[0] <= bid; key = book.above.minKey()) {
      fired.push(book.above.get(key)!);
      book.above.delete(key);
    }
    for (let key = book.below.maxKey(); key && key[0] >= bid; key = book.below.maxKey()) {
      fired.push(book.below.get(key)!);
      book.below.delete(key);
    }
    for (const alert of fired) this.watched.delete(alert.alertId);
    return fired;
  }
}
