import type { SearchItem } from "../people.schemas.js";

/*
 * People search's answers as everyone but their own hidden row and their blocks sees them, kept per
 * query (filters, sort, page) under the token of search's rows (docs/decisions/0181). The token
 * changes in the same transaction as every write to those rows (the snapshot pass, a privacy
 * change, copiers), so a kept answer is used only while the rows it was computed from are the rows
 * in the store: its `totalItems` is exact. Entries also expire after `maxAgeMs`, and the oldest go
 * first past `maxEntries`.
 */

export interface SearchAnswer {
  totalItems: number;
  items: SearchItem[];
}

interface Entry {
  token: string;
  answer: SearchAnswer;
  bornAt: number;
  /** The clock span (ms since the epoch) the answer holds for: weeks since registration move with it. */
  from: number;
  until: number;
}

declare module "../../context.js" {
  interface Deps {
    /** People search's answers, keyed by query and the rows' token (search-cache.ts). */
    readonly peopleSearches: PeopleSearchCache;
  }
}

export class PeopleSearchCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries = 2_000,
    private readonly maxAgeMs = 10 * 60_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The answer kept for `query` under `token` at clock time `at`, if any. */
  get(query: string, token: string, at: number): SearchAnswer | undefined {
    const entry = this.entries.get(query);
    if (!entry) return undefined;
    if (entry.token === token && at >= entry.from && at < entry.until && this.now() - entry.bornAt <= this.maxAgeMs) {
      // Most recently used last: the oldest is dropped first.
      this.entries.delete(query);
      this.entries.set(query, entry);
      return entry.answer;
    }
    this.entries.delete(query);
    return undefined;
  }

  /** Keeps `answer`, computed at clock time `from`, for use until clock time `until`. */
  keep(query: string, token: string, answer: SearchAnswer, from: number, until: number): void {
    this.entries.delete(query);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    if (until <= from) return;
    this.entries.set(query, { token, answer, bornAt: this.now(), from, until });
  }

  get size(): number {
    return this.entries.size;
  }
}
