/**
 * One instrument's buys or sells for the entry index (./entry-index.ts, decision 0161): a binary
 * heap of (key, orderId) pairs, nearest first, with removed orders' slots dropped lazily.
 */

/** An order as the index holds it: its side and its key there. */
export interface Resting {
  readonly side: Side;
  readonly key: number;
}

/** Rebuilds a side once this many of its slots (and more than its live orders) are cancelled ones. */
const COMPACT_AT = 64;

/**
 * One instrument's buys or sells: a min-heap on `key` (−trigger for a buy, trigger for a sell),
 * ties by order id, in one Float64Array of (key, orderId) pairs: a heap step reads no object. A
 * slot is live while the index maps its order id to this side and this key (a re-added order
 * with the same key has two such slots, adjacent in heap order: the first taken makes the other
 * stale).
 */
export class Side {
  private heap = new Float64Array(32);
  private n = 0;
  /** Slots that are not a live order's (removed ones, or a re-added order's earlier slot): n − live. */
  private stale = 0;
  /** The key of the nearest live order; +Infinity when there is none (nothing can be reached). */
  top = Number.POSITIVE_INFINITY;

  constructor(
    readonly instrumentId: number,
    readonly isBuy: boolean,
    private readonly live: Map<number, Resting>,
    private readonly tops: Tops,
    /** Where this side's `top` is mirrored in `tops` (−1: not mirrored). */
    private readonly slot: number,
  ) {}

  private setTop(): void {
    this.top = this.n > 0 ? this.heap[0]! : Number.POSITIVE_INFINITY;
    if (this.slot >= 0) this.tops.keys[this.slot] = this.top;
  }

  /** −trigger for a buy, trigger for a sell: the nearest order has the least key. */
  keyOf(triggerRate: number): number {
    return this.isBuy ? -triggerRate : triggerRate;
  }

  get slots(): number {
    return this.n;
  }

  private isLive(i: number): boolean {
    const r = this.live.get(this.heap[2 * i + 1]!);
    return r !== undefined && r.side === this && r.key === this.heap[2 * i]!;
  }

  push(key: number, orderId: number): void {
    if (2 * this.n === this.heap.length) {
      const grown = new Float64Array(Math.max(32, this.heap.length * 2));
      grown.set(this.heap);
      this.heap = grown;
    }
    this.heap[2 * this.n] = key;
    this.heap[2 * this.n + 1] = orderId;
    this.n += 1;
    this.up(this.n - 1);
    this.setTop();
  }

  /** The id of the nearest live order (only while `top` is finite). */
  topId(): number {
    return this.heap[1]!;
  }

  /** Takes the nearest order off, once the index has forgotten it (the next top is then live). */
  popTop(): void {
    this.pop();
    this.dropStaleTop();
  }

  /** A removed order's slot is dropped now if it is on top, later (lazily or by a rebuild) otherwise. */
  forget(): void {
    this.stale += 1;
    this.dropStaleTop();
    if (this.stale >= COMPACT_AT && this.stale > this.n - this.stale) this.rebuild();
  }

  private dropStaleTop(): void {
    if (this.stale > 0) {
      while (this.n > 0 && !this.isLive(0)) {
        this.pop();
        this.stale -= 1;
      }
    }
    this.setTop();
  }

  private pop(): void {
    const h = this.heap;
    this.n -= 1;
    if (this.n > 0) {
      h[0] = h[2 * this.n]!;
      h[1] = h[2 * this.n + 1]!;
      this.down(0);
    }
  }

  /** Keeps the live slots only (each order once) and restores the heap bottom-up (Floyd), O(n). */
  private rebuild(): void {
    const h = this.heap;
    const kept = new Set<number>();
    let n = 0;
    for (let i = 0; i < this.n; i++) {
      const id = h[2 * i + 1]!;
      if (!this.isLive(i) || kept.has(id)) continue;
      kept.add(id);
      h[2 * n] = h[2 * i]!;
      h[2 * n + 1] = id;
      n += 1;
    }
    this.n = n;
    this.stale = 0;
    if (h.length > 64 && 8 * n < h.length) this.heap = h.slice(0, Math.max(32, 4 * n));
    for (let i = (n >> 1) - 1; i >= 0; i--) this.down(i);
    this.setTop();
  }

  private up(i: number): void {
    const h = this.heap;
    const key = h[2 * i]!;
    const id = h[2 * i + 1]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pk = h[2 * p]!;
      if (!(key < pk || (key === pk && id < h[2 * p + 1]!))) break;
      h[2 * i] = pk;
      h[2 * i + 1] = h[2 * p + 1]!;
      i = p;
    }
    h[2 * i] = key;
    h[2 * i + 1] = id;
  }

  private down(i: number): void {
    const h = this.heap;
    const n = this.n;
    const key = h[2 * i]!;
    const id = h[2 * i + 1]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      let ck = h[2 * c]!;
      let cid = h[2 * c + 1]!;
      if (c + 1 < n) {
        const rk = h[2 * c + 2]!;
        const rid = h[2 * c + 3]!;
        if (rk < ck || (rk === ck && rid < cid)) {
          c += 1;
          ck = rk;
          cid = rid;
        }
      }
      if (!(ck < key || (ck === key && cid < id))) break;
      h[2 * i] = ck;
      h[2 * i + 1] = cid;
      i = c;
    }
    h[2 * i] = key;
    h[2 * i + 1] = id;
  }
}

/**
 * The sides' tops by instrument id, for the ids below DENSE_IDS: [2·id] the buys', [2·id + 1] the
 * sells' (+Infinity: none), so that a tick reaching nothing reads two adjacent numbers.
 */
export class Tops {
  keys = new Float64Array(0);

  /** Makes room for `instrumentId`; false when it is not a small non-negative integer. */
  cover(instrumentId: number): boolean {
    if (!(Number.isInteger(instrumentId) && instrumentId >= 0 && instrumentId < DENSE_IDS)) return false;
    if (2 * instrumentId + 1 < this.keys.length) return true;
    let length = Math.max(64, this.keys.length);
    while (length <= 2 * instrumentId + 1) length *= 2;
    const grown = new Float64Array(length).fill(Number.POSITIVE_INFINITY);
    grown.set(this.keys);
    this.keys = grown;
    return true;
  }
}

/** Instrument ids below this have their tops in `Tops` (the catalog's ids are in the thousands). */
const DENSE_IDS = 1 << 20;
