import { BTree } from "../../core/sorted-tree.js";

export type AlertDirection = "above" | "below";

export interface WatchedAlert {
  alertId: string;
  instrumentId: number;
  targetPrice: number;
  /** `above`: fires when the bid rises to the target; `below`: when it falls to it. */
  direction: AlertDirection;
}

/** By target, then id (two alerts may share a target). */
const byTarget = (a: WatchedAlert, b: WatchedAlert) =>
  a.targetPrice - b.targetPrice || (a.alertId < b.alertId ? -1 : a.alertId > b.alertId ? 1 : 0);

/**
 * Each tree is keyed by the watched alert itself with no values: sorted-btree then shares one
 * values array among all its leaves, so an alert costs one slot in a leaf (no key array with its
 * own boxed price, no value slot beside it). The alerts are the index's own copies, never changed
 * while in a tree (a change of target is a remove and an add).
 */
type Tree = BTree<WatchedAlert, undefined>;

interface Book {
  /** Targets above the bid, lowest first: the first ones reached by a rise. */
  above: Tree;
  /** Targets below the bid, highest first when read from the end. */
  below: Tree;
  /**
   * The lowest target above (Infinity when none) and the highest below (-Infinity), kept exact on
   * every change: a tick that reaches neither reads these two numbers and no tree (whose nodes, with
   * a million alerts, are mostly out of the CPU's caches by the next tick).
   */
  lowestAbove: number;
  highestBelow: number;
}

const lowestOf = (tree: Tree) => tree.minKey()?.targetPrice ?? Number.POSITIVE_INFINITY;
const highestOf = (tree: Tree) => tree.maxKey()?.targetPrice ?? Number.NEGATIVE_INFINITY;

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

  /** Forgets every alert (the sandbox's world reset, before the index is loaded again). */
  clear(): void {
    for (const alertId of [...this.watched.keys()]) this.remove(alertId);
  }

  /** Watches an alert, replacing what was watched under its id. */
  add(alert: WatchedAlert): void {
    this.remove(alert.alertId);
    let book = this.books.get(alert.instrumentId);
    if (!book) {
      book = {
        above: new BTree<WatchedAlert, undefined>(undefined, byTarget),
        below: new BTree(undefined, byTarget),
        lowestAbove: Number.POSITIVE_INFINITY,
        highestBelow: Number.NEGATIVE_INFINITY,
      };
      this.books.set(alert.instrumentId, book);
    }
    // A copy of its own: a caller changing its object later cannot unsort a tree.
    const own: WatchedAlert = {
      alertId: alert.alertId,
      instrumentId: alert.instrumentId,
      targetPrice: alert.targetPrice,
      direction: alert.direction,
    };
    book[own.direction].set(own, undefined);
    if (own.direction === "above") book.lowestAbove = Math.min(book.lowestAbove, own.targetPrice);
    else book.highestBelow = Math.max(book.highestBelow, own.targetPrice);
    this.watched.set(own.alertId, own);
  }

  remove(alertId: string): void {
    const alert = this.watched.get(alertId);
    if (!alert) return;
    this.watched.delete(alertId);
    const book = this.books.get(alert.instrumentId);
    if (!book) return;
    if (alert.direction === "above") {
      book.above.delete(alert);
      if (alert.targetPrice === book.lowestAbove) book.lowestAbove = lowestOf(book.above);
    } else {
      book.below.delete(alert);
      if (alert.targetPrice === book.highestBelow) book.highestBelow = highestOf(book.below);
    }
  }

  /** The alerts this bid reaches, removed from the index. */
  update(instrumentId: number, bid: number): WatchedAlert[] {
    const book = this.books.get(instrumentId);
    if (!book || (bid < book.lowestAbove && bid > book.highestBelow)) return [];
    const fired: WatchedAlert[] = [];
    if (bid >= book.lowestAbove) {
      for (let alert = book.above.minKey(); alert && alert.targetPrice <= bid; alert = book.above.minKey()) {
        fired.push(alert);
        book.above.delete(alert);
      }
      book.lowestAbove = lowestOf(book.above);
    }
    if (bid <= book.highestBelow) {
      for (let alert = book.below.maxKey(); alert && alert.targetPrice >= bid; alert = book.below.maxKey()) {
        fired.push(alert);
        book.below.delete(alert);
      }
      book.highestBelow = highestOf(book.below);
    }
    for (const alert of fired) this.watched.delete(alert.alertId);
    return fired;
  }
}
