import type { ReadCacheSettings } from "../../../config.js";
import type { EventBus, SocialChanged } from "../../../core/events.js";
import type { Metrics } from "../../../infra/metrics.js";

/*
 * Answers of social reads (one post, a feed page), kept as the exact bytes sent, per caller and
 * request, until something they were made of changes (docs/decisions/0080).
 *
 * Every social write publishes one `SocialChanged` after it commits, naming the posts whose
 * documents changed, the users whose own view changed, and whether feeds may list other posts.
 * Each instance hears it (`subscribeEverywhere`) and notes the generation at which each of those
 * keys last changed. An answer remembers the generation at which it started to be computed and the
 * keys it was made of; it is served only while none of those keys changed after that generation.
 * A change that lands while an answer is being computed therefore makes that answer stale at once,
 * never cached as current.
 */

/**
 * What an answer depends on: `post:<id>`, `user:<id>`, LISTINGS (which posts any feed holds: every
 * listing is redone when it changes), the listing of one shared feed source (`listingKey`), or
 * PERSONAL_LISTINGS (feeds read per caller). A new post changes its own sources' listings and the
 * personal ones; any other change to what feeds list changes LISTINGS.
 */
export type DependencyKey = string;
export const LISTINGS: DependencyKey = "listings";
export const PERSONAL_LISTINGS: DependencyKey = "listings:personal";
/** The listing of the news feed (`all`, id ""), an owner's feed or an instrument's feed. */
export const listingKey = (kind: "all" | "owner" | "instrument", id: string | number): DependencyKey =>
  `listing:${kind}:${id}`;
export const postKey = (postId: string): DependencyKey => `post:${postId}`;
export const userKey = (userId: string): DependencyKey => `user:${userId}`;

interface Entry {
  /** An answer's bytes (`peek`), or a shared part of answers (`peekValue`: documents, listings). */
  value: unknown;
  /** Bytes charged to the budget. */
  size: number;
  generation: number;
  deps: readonly DependencyKey[];
  bornAt: number;
  /**
   * The generation its build started at (kept through patches) when it may be renewed at its
   * maximum age (`renewed`); null when it may not.
   */
  builtAt: number | null;
  /** Read since it was stored or last given a second chance (see `store`). */
  used: boolean;
}

/** Computed answer: its body (the bytes sent) and what it was made of. */
export interface Computed {
  body: Buffer;
  deps: readonly DependencyKey[];
}

/** What a change names: a `SocialChanged` as the cache reads it. */
export type Change = Pick<
  SocialChanged,
  "postIds" | "userIds" | "listings" | "listed" | "everywhere" | "like" | "comment"
>;

/**
 * Kept parts a change can be absorbed into (docs/decisions/0198): given the change and the kept
 * value under a key (undefined when none is current), the parts it rewrites, each with the value
 * that reflects the change and its size. Parts it does not rewrite go stale as usual.
 */
export type Patcher = (
  event: Change,
  keptValue: (key: string) => unknown,
) => readonly { key: string; value: unknown; size: number }[];

/** Change marks kept before they are folded into one floor (every older answer is dropped). */
const MAX_MARKS = 200_000;

export class SocialReadCache {
  private readonly entries = new Map<string, Entry>();
  /** Generation at which each key last changed. */
  private readonly changedAt = new Map<DependencyKey, number>();
  private generation = 0;
  /** Answers computed from before this generation are not served (marks were forgotten). */
  private floor = 0;
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private renewals = 0;
  private readonly patchers: Patcher[] = [];
  /** The store's count of commits made by other connections, as last read (`noteExternal`). */
  private lastExternal: number | undefined;
  /** The generation at which such a commit was last noticed. */
  private externalAt = 0;

  constructor(
    private readonly settings: ReadCacheSettings,
    private readonly now: () => number = () => performance.now(),
    /**
     * The store's count of commits made by other connections than this process's writer
     * (SQLite's data_version, `Db.externalVersion`); undefined where it is not known (PostgreSQL).
     */
    private readonly external: () => number | undefined = () => undefined,
  ) {}

  /**
   * Listens to every instance's social writes. Its hits, misses and bytes are read by `metrics`
   * at scrape time (`stats()`): the hit path only adds to a plain number, as before.
   */
  static listening(
    bus: EventBus,
    settings: ReadCacheSettings,
    metrics: Pick<Metrics, "addReadCache">,
    external?: () => number | undefined,
  ): SocialReadCache {
    const cache = new SocialReadCache(settings, undefined, external);
    bus.subscribeEverywhere("SocialChanged", (event) => cache.changed(event));
    metrics.addReadCache(cache);
    return cache;
  }

  get enabled(): boolean {
    return this.settings.maxBytes > 0;
  }

  /** The cached body for `key` while it is current (no promise: the hit path stays synchronous). */
  peek(key: string): Buffer | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.isCurrent(entry)) {
      this.hits++;
      entry.used = true;
      return entry.value as Buffer;
    }
    this.drop(key, entry);
    return undefined;
  }

  /** Computes the answer for `key` and keeps it, unless what it was made of changed meanwhile. */
  async fill(key: string, compute: () => Promise<Computed>): Promise<Buffer> {
    if (!this.enabled) return (await compute()).body;
    this.misses++;
    const generation = this.generation;
    const computed = await compute();
    this.keep(key, computed.body, computed.body.length, computed.deps, generation);
    return computed.body;
  }

  /** The generation a computation starts at: pass it to `keep` once its result is known. */
  get current(): number {
    return this.generation;
  }

  /**
   * `current` for a build whose parts may be renewed (`keep`'s `renewable`): a commit made by
   * another connection is noticed first, so that parts built from before it are never renewed.
   */
  startBuild(): number {
    this.noteExternal();
    return this.generation;
  }

  /** A shared part (a document, a listing) kept under `key` while current; undefined otherwise. */
  peekValue<T>(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.isCurrent(entry)) {
      this.hits++;
      entry.used = true;
      return entry.value as T;
    }
    this.drop(key, entry);
    return undefined;
  }

  /** Counts a computation of a shared part (for the hit ratio the metrics show). */
  missed(): void {
    this.misses++;
  }

  /**
   * Keeps `value` (charged `size` bytes) computed from the state at `since` (`current` before it
   * started), unless one of `deps` changed meanwhile or it alone exceeds the budget. A `renewable`
   * value is made of the store's rows alone (not of the time, not of another cache) and `since`
   * came from `startBuild`: at its maximum age it may be renewed rather than built again.
   */
  keep(
    key: string,
    value: unknown,
    size: number,
    deps: readonly DependencyKey[],
    since: number,
    renewable = false,
  ): void {
    if (!this.enabled) return;
    const builtAt = renewable ? since : null;
    const fresh: Entry = { value, size, generation: since, deps, bornAt: this.now(), builtAt, used: false };
    if (this.isCurrent(fresh) && size <= this.settings.maxBytes) this.store(key, fresh);
  }

  /** Lets `patcher` rewrite kept parts on each change instead of their being rebuilt (0198). */
  patchWith(patcher: Patcher): void {
    this.patchers.push(patcher);
  }

  changed(event: Change): void {
    // Patches read the parts as they were just before this change: only a part that was current
    // then, and so reflects every earlier change, is rewritten; it is then as of this change.
    const patched = event.everywhere ? [] : this.patchers.flatMap((p) => this.patchesOf(p, event));
    const g = ++this.generation;
    if (event.everywhere) {
      this.changedAt.clear();
      this.floor = g;
      return;
    }
    for (const id of event.postIds) this.changedAt.set(postKey(id), g);
    for (const id of event.userIds) this.changedAt.set(userKey(id), g);
    if (event.listings && event.listed) {
      this.changedAt.set(listingKey("all", ""), g);
      this.changedAt.set(listingKey("owner", event.listed.ownerId), g);
      for (const id of event.listed.instrumentIds) this.changedAt.set(listingKey("instrument", id), g);
      this.changedAt.set(PERSONAL_LISTINGS, g);
    } else if (event.listings) this.changedAt.set(LISTINGS, g);
    if (this.changedAt.size > MAX_MARKS) {
      this.changedAt.clear();
      this.floor = g;
    }
    for (const { key, value, size } of patched) {
      // Storing an earlier patch may have evicted this part to stay within the budget.
      const old = this.entries.get(key);
      if (!old) continue;
      const { deps, bornAt, builtAt, used } = old;
      const fresh: Entry = { value, size, generation: g, deps, bornAt, builtAt, used };
      if (size <= this.settings.maxBytes) this.store(key, fresh);
      else this.drop(key, old);
    }
  }

  stats(): { entries: number; bytes: number; hits: number; misses: number; renewals: number } {
    return {
      entries: this.entries.size,
      bytes: this.bytes,
      hits: this.hits,
      misses: this.misses,
      renewals: this.renewals,
    };
  }

  /**
   * What `patcher` rewrites for `event`; nothing if it fails, so that a failing patch leaves its
   * parts to go stale with the change instead of stopping the change from being marked.
   */
  private patchesOf(patcher: Patcher, event: Change): ReturnType<Patcher> {
    try {
      return patcher(event, (key) => this.currentValue(key));
    } catch {
      return [];
    }
  }

  /** The value kept under `key` while current, without counting a hit or moving it up. */
  private currentValue(key: string): unknown {
    const entry = this.entries.get(key);
    return entry && this.isCurrent(entry) ? entry.value : undefined;
  }

  private isCurrent(entry: Entry): boolean {
    if (entry.generation < this.floor) return false;
    for (const dep of entry.deps) if ((this.changedAt.get(dep) ?? 0) > entry.generation) return false;
    return this.now() - entry.bornAt <= this.settings.maxAgeMs || this.renewed(entry);
  }

  /**
   * READ_CACHE_MAX_AGE_MS is the backstop for a change this instance did not hear of: one made by
   * another process (another instance, a CLI command beside the server) or another connection. On
   * SQLite every such change is a commit of another connection, which data_version counts. So a
   * renewable entry none of whose parts changed, built after the last such commit noticed, with
   * none since, is as current as a new build would be: its age starts again (docs/decisions/0212).
   * Without this, every kept document was built again once a minute, all those of a warm-up in the
   * same few seconds.
   */
  private renewed(entry: Entry): boolean {
    if (entry.builtAt === null || !this.noteExternal() || entry.builtAt < this.externalAt) return false;
    entry.bornAt = this.now();
    this.renewals++;
    return true;
  }

  /** Notes a commit of another connection (a new generation); false where they are not counted. */
  private noteExternal(): boolean {
    const version = this.external();
    if (version === undefined) return false;
    if (version !== this.lastExternal) {
      this.lastExternal = version;
      this.externalAt = ++this.generation;
    }
    return true;
  }

  private store(key: string, entry: Entry): void {
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    this.entries.set(key, entry);
    this.bytes += entry.size;
    // Second chance (docs/decisions/0190, 0200), until the budget holds: from the oldest on, an
    // entry read since it was stored or last passed over goes to the end, unread; an unread one
    // is evicted; the entry just stored stays. A moved entry is met again unread, so the loop ends
    // (an entry alone is within the budget). A hit only sets `used`, where 0190 moved the entry to
    // the end of the map on every hit (a delete and a set).
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.settings.maxBytes) break;
      if (k === key) continue;
      if (e.used) {
        e.used = false;
        this.entries.delete(k);
        this.entries.set(k, e);
      } else this.drop(k, e);
    }
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.size;
  }
}

/** A read's answer and what it was made of. */
export interface Answer<T> {
  view: T;
  deps: readonly DependencyKey[];
}

/** The posts an answer shows (and the posts they share), and the caller whose view it is. */
export function dependenciesOf(
  rows: readonly { id: string; sharedPostId: string | null; sharedOriginPostId: string | null }[],
  requesterId: string | null,
): DependencyKey[] {
  const keys = new Set<DependencyKey>();
  for (const r of rows) {
    keys.add(postKey(r.id));
    if (r.sharedPostId) keys.add(postKey(r.sharedPostId));
    if (r.sharedOriginPostId) keys.add(postKey(r.sharedOriginPostId));
  }
  if (requesterId) keys.add(userKey(requesterId));
  return [...keys];
}
