import { BTree } from "../../core/sorted-tree.js";

/**
 * The open positions' stop-loss, take-profit and trailing-stop levels, ordered by price per
 * instrument and side, so that one price update costs O(log n + positions triggered).
 *
 * Prices are handled in "favourable" coordinates x: x = bid for a long (it closes at the
 * bid), x = −ask for a short (it closes at the ask). In x a stop-loss always fires when
 * x ≤ level, a take-profit when x ≥ level, and a trailing stop follows the highest x reached.
 *
 * Trailing stops: positions whose high-water mark is the same share a group; a group keeps its
 * positions ordered by gap, so its highest stop is `peak − smallest gap`. A new high merges every
 * group whose peak it passes into one (the smaller groups move into the largest, so a position
 * moves O(log n) times over its life), and the groups are ordered by their highest stop.
 */

export type TriggerKind = "StopLoss" | "TakeProfit" | "TrailingStopLoss";

export interface Fired {
  positionId: number;
  instrumentId: number;
  kind: TriggerKind;
  /** The trigger price, as a rate (not in x coordinates). */
  rate: number;
}

export interface TriggerSpec {
  positionId: number;
  instrumentId: number;
  isBuy: boolean;
  /** 0 = none. */
  stopLossRate: number;
  /** 0 = none. */
  takeProfitRate: number;
  isTslEnabled: boolean;
  /** For a trailing stop: the close-side price the stop trails (its best price so far). */
  bestRate?: number;
}

type Key = [number, number];
const compareKeys = (a: Key, b: Key) => a[0] - b[0] || a[1] - b[1];
const tree = <V>() => new BTree<Key, V>(undefined, compareKeys);

interface Group {
  id: number;
  peak: number;
  /** [gap, positionId] → positionId */
  gaps: BTree<Key, number>;
}

/** Removes float noise from derived levels (peak − gap). */
const clean = (x: number) => Math.round(x * 1e10) / 1e10;

class Side {
  readonly stops = tree<number>();
  readonly takes = tree<number>();
  readonly groupsByPeak = tree<Group>();
  readonly groupsByStop = tree<Group>();
  /** The last x seen, so a newly added trailing stop can start from it. */
  lastX: number | undefined;

  constructor(
    readonly instrumentId: number,
    readonly sign: 1 | -1,
  ) {}

  groupStop(g: Group): number {
    return clean(g.peak - g.gaps.minKey()![0]);
  }

  indexGroup(g: Group): void {
    this.groupsByPeak.set([g.peak, g.id], g);
    this.groupsByStop.set([this.groupStop(g), g.id], g);
  }

  unindexGroup(g: Group): void {
    this.groupsByPeak.delete([g.peak, g.id]);
    if (g.gaps.size > 0) this.groupsByStop.delete([this.groupStop(g), g.id]);
  }
}

interface Entry {
  side: Side;
  stop?: number;
  take?: number;
  trailing?: { group: Group; gap: number };
}

export class TriggerIndex {
  private readonly sides = new Map<number, Side>();
  private readonly entries = new Map<number, Entry>();
  private nextGroupId = 1;

  get size(): number {
    return this.entries.size;
  }

  /** Forgets every position (the sandbox's world reset, before the index is loaded again). */
  clear(): void {
    for (const positionId of [...this.entries.keys()]) this.remove(positionId);
  }

  private side(instrumentId: number, isBuy: boolean): Side {
    const key = instrumentId * 2 + (isBuy ? 0 : 1);
    let side = this.sides.get(key);
    if (!side) {
      side = new Side(instrumentId, isBuy ? 1 : -1);
      this.sides.set(key, side);
    }
    return side;
  }

  /** Watches a position's levels (replacing what was watched for it). Positions without any are ignored. */
  add(spec: TriggerSpec): void {
    this.remove(spec.positionId);
    const side = this.side(spec.instrumentId, spec.isBuy);
    const x = (rate: number) => rate * side.sign;
    const entry: Entry = { side };
    if (spec.stopLossRate > 0 && spec.isTslEnabled) {
      const best = spec.bestRate !== undefined ? x(spec.bestRate) : (side.lastX ?? x(spec.stopLossRate));
      const gap = clean(best - x(spec.stopLossRate));
      if (gap > 0) {
        const group = this.groupAt(side, best);
        side.unindexGroup(group);
        group.gaps.set([gap, spec.positionId], spec.positionId);
        side.indexGroup(group);
        entry.trailing = { group, gap };
      } else {
        entry.stop = x(spec.stopLossRate);
        side.stops.set([entry.stop, spec.positionId], spec.positionId);
      }
    } else if (spec.stopLossRate > 0) {
      entry.stop = x(spec.stopLossRate);
      side.stops.set([entry.stop, spec.positionId], spec.positionId);
    }
    if (spec.takeProfitRate > 0) {
      entry.take = x(spec.takeProfitRate);
      side.takes.set([entry.take, spec.positionId], spec.positionId);
    }
    if (entry.stop !== undefined || entry.take !== undefined || entry.trailing)
      this.entries.set(spec.positionId, entry);
  }

  /** The group whose peak is `peak` (a new one when none is). */
  private groupAt(side: Side, peak: number): Group {
    const found = side.groupsByPeak.getRange([peak, 0], [peak, Number.MAX_SAFE_INTEGER], true, 1)[0];
    if (found) return found[1];
    const group: Group = { id: this.nextGroupId++, peak, gaps: tree<number>() };
    side.groupsByPeak.set([peak, group.id], group);
    return group;
  }

  remove(positionId: number): void {
    const entry = this.entries.get(positionId);
    if (!entry) return;
    this.entries.delete(positionId);
    const { side } = entry;
    if (entry.stop !== undefined) side.stops.delete([entry.stop, positionId]);
    if (entry.take !== undefined) side.takes.delete([entry.take, positionId]);
    if (entry.trailing) {
      const { group, gap } = entry.trailing;
      side.unindexGroup(group);
      group.gaps.delete([gap, positionId]);
      if (group.gaps.size > 0) side.indexGroup(group);
    }
  }

  /** Every watched trailing stop with the level it stands at now. */
  *trailingStops(): Generator<{ positionId: number; stopLossRate: number }> {
    for (const [positionId, entry] of this.entries) {
      if (!entry.trailing) continue;
      const { group, gap } = entry.trailing;
      yield { positionId, stopLossRate: clean((group.peak - gap) * entry.side.sign) };
    }
  }

  /** The stop-loss rate in force for a position (a trailing stop's moves included); undefined if not watched. */
  currentStop(positionId: number): number | undefined {
    const entry = this.entries.get(positionId);
    if (!entry) return undefined;
    const { side } = entry;
    if (entry.trailing) return clean((entry.trailing.group.peak - entry.trailing.gap) * side.sign);
    return entry.stop === undefined ? undefined : entry.stop * side.sign;
  }

  /**
   * Applies a new bid/ask of an instrument: trailing stops follow, and every position whose
   * level is crossed is removed from the index and returned (each at most once).
   */
  update(instrumentId: number, bid: number, ask: number): Fired[] {
    const fired: Fired[] = [];
    const long = this.sides.get(instrumentId * 2);
    if (long) this.evaluate(long, bid, fired);
    const short = this.sides.get(instrumentId * 2 + 1);
    if (short) this.evaluate(short, -ask, fired);
    for (const f of fired) this.remove(f.positionId);
    return fired;
  }

  private evaluate(side: Side, x: number, fired: Fired[]): void {
    side.lastX = x;
    const seen = new Set<number>();
    const fire = (positionId: number, kind: TriggerKind, level: number) => {
      if (seen.has(positionId)) return;
      seen.add(positionId);
      fired.push({ positionId, instrumentId: side.instrumentId, kind, rate: clean(level * side.sign) });
    };
    // Stop-losses at or above x fire (highest first).
    for (let pair = side.stops.maxKey(); pair !== undefined && pair[0] >= x; pair = side.stops.nextLowerKey(pair)) {
      fire(pair[1], "StopLoss", pair[0]);
    }
    // Take-profits at or below x fire (lowest first).
    for (let pair = side.takes.minKey(); pair !== undefined && pair[0] <= x; pair = side.takes.nextHigherKey(pair)) {
      fire(pair[1], "TakeProfit", pair[0]);
    }
    this.trail(side, x);
    // Trailing stops: groups whose highest stop is at or above x.
    for (
      let key = side.groupsByStop.maxKey();
      key !== undefined && key[0] >= x;
      key = side.groupsByStop.nextLowerKey(key)
    ) {
      const group = side.groupsByStop.get(key)!;
      for (const [gap, positionId] of group.gaps.keys()) {
        if (clean(group.peak - gap) < x) break;
        fire(positionId, "TrailingStopLoss", clean(group.peak - gap));
      }
    }
  }

  /** A new high: every group whose peak is below x now has x as its peak; they merge into one. */
  private trail(side: Side, x: number): void {
    const passed: Group[] = [];
    for (
      let key = side.groupsByPeak.minKey();
      key !== undefined && key[0] < x;
      key = side.groupsByPeak.nextHigherKey(key)
    ) {
      passed.push(side.groupsByPeak.get(key)!);
    }
    if (passed.length === 0) return;
    let target = passed[0]!;
    for (const g of passed) if (g.gaps.size > target.gaps.size) target = g;
    for (const g of passed) side.unindexGroup(g);
    const existing = side.groupsByPeak.getRange([x, 0], [x, Number.MAX_SAFE_INTEGER], true, 1)[0]?.[1];
    const groups = existing ? [...passed, existing] : passed;
    if (existing) {
      side.unindexGroup(existing);
      if (existing.gaps.size > target.gaps.size) target = existing;
    }
    for (const g of groups) {
      if (g === target) continue;
      for (const [gap, positionId] of g.gaps.keys()) {
        target.gaps.set([gap, positionId], positionId);
        const entry = this.entries.get(positionId);
        if (entry?.trailing) entry.trailing.group = target;
      }
    }
    target.peak = x;
    if (target.gaps.size > 0) side.indexGroup(target);
  }
}
