import type { Executor } from "../../../infra/db/executor.js";
import type { SearchQuery } from "../people.schemas.js";
import { pageNames, searchQueries } from "./people-search.repository.js";
import { walkAscending } from "./value-walk.js";

/**
 * A search's page with its users' names (decisions 0165, 0188): one query in the sort index's
 * order, or for an ascending sort of a column indexed descending, the walk by value and then the
 * names of the page's users. `total` (the search's, counted first) lets a page of an instrument's
 * holders walk the sort's index when they are many.
 */
export async function searchPage(
  db: Executor,
  q: SearchQuery,
  me: number,
  blocked: readonly string[],
  now: Date,
  total?: number,
) {
  const { rows, ascending, offset } = searchQueries(db, q, me, blocked, now, total);
  if (!ascending) return rows.execute();
  const page = await walkAscending(ascending, offset, q.pageSize);
  if (page.length === 0) return [];
  const names = new Map((await pageNames(db, [...new Set(page.map((r) => r.userId))])).map((n) => [n.id, n]));
  return page.flatMap((r) => {
    const n = names.get(r.userId);
    if (!n) return [];
    const { id: _, ...name } = n;
    return [{ ...r, ...name }];
  });
}
