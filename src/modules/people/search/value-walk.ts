/*
 * An ascending page over an index kept descending (decision 0188). Every sort column's index is
 * `(period, column desc, gcid, listed)` and ties go by gcid ascending in both directions, so the
 * ascending order (column asc, gcid asc) is not the index walked backwards: SQLite walked it
 * backwards and sorted each run of equal values again, reading the whole run (all 100,000 rows of a
 * period where every value is the same, as daily gain on a day without prices). Within one value
 * the index is in gcid order, so the page is taken one value at a time, smallest first, each run
 * read in index order only as far as the page needs. A column with many distinct values would
 * need one step per row: after `maxValues` values the rest of the page comes from the plain query
 * (the backwards walk re-sorts runs, which are then short).
 */

export interface AscendingWalk<V, R> {
  /** The smallest value of the column among the period's rows, above `after` when given. */
  nextValue(after: V | undefined): Promise<V | undefined>;
  /** The first `limit` matching rows whose value is `value`, by gcid. */
  run(value: V, limit: number): Promise<R[]>;
  /** Matching rows valued above `after` (all when undefined), by value then gcid: `limit` after `offset`. */
  rest(after: V | undefined, limit: number, offset: number): Promise<R[]>;
}

/** The page (`limit` rows after `offset`) of the matching rows by value ascending, ties by gcid. */
export async function walkAscending<V, R>(
  walk: AscendingWalk<V, R>,
  offset: number,
  limit: number,
  maxValues = 16,
): Promise<R[]> {
  const page: R[] = [];
  let skip = offset;
  let done: V | undefined;
  for (let steps = 0; page.length < limit; steps++) {
    if (steps === maxValues) return page.concat(await walk.rest(done, limit - page.length, skip));
    const value = await walk.nextValue(done);
    if (value === undefined) return page;
    const need = limit - page.length;
    const run = await walk.run(value, skip + need);
    if (run.length <= skip) skip -= run.length;
    else {
      page.push(...run.slice(skip, skip + need));
      skip = 0;
    }
    done = value;
  }
  return page;
}
