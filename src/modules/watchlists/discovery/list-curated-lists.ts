import { requireUser } from "../../../core/access.js";
import type { Ctx } from "../../context.js";
import { findInstruments } from "../../market/find-instruments.js";
import { WATCHLIST_READ_SCOPES } from "../watchlists.rules.js";
import { CURATED_LISTS } from "./curated-lists.js";

export interface CuratedListView {
  uuid: string;
  name: string;
  description: string;
  /** The large logo of the list's first instrument. */
  listImageUrl: string;
  instrumentIds: number[];
}

/** The curated lists, each with the instruments the catalog has; a list left empty is not shown. */
export async function listCuratedLists(ctx: Ctx): Promise<CuratedListView[]> {
  requireUser(ctx.actor, WATCHLIST_READ_SCOPES);
  const known = await findInstruments(
    ctx,
    CURATED_LISTS.flatMap((l) => l.instrumentIds),
  );
  return CURATED_LISTS.flatMap((list) => {
    const ids = list.instrumentIds.filter((id) => known.has(id));
    if (ids.length === 0) return [];
    return [
      {
        uuid: list.uuid,
        name: list.name,
        description: list.description,
        listImageUrl: known.get(ids[0]!)!.avatar.large,
        instrumentIds: ids,
      },
    ];
  });
}
