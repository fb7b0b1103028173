import type { Executor } from "../../../infra/db/executor.js";
import type { FeedSource, PostRow } from "../shared/social.rows.js";
import { feedQueries as Q, sourceKey } from "./feed-queries.repository.js";

export const feedsRepository = (db: Executor) => ({
  /** One feed page (limit rows from offset), newest first by the source's own order. */
  async feedPage(source: FeedSource, requesterId: string | null, offset: number, limit: number): Promise<PostRow[]> {
    const key = sourceKey(source);
    const shape = { kind: source.kind, anon: requesterId === null, instruments: key.instruments.length };
    return Q.feedPage(db, shape, [requesterId ?? "", key.id, key.instruments, limit, offset]);
  },

  /** The instruments with most posts since `since`, most first. */
  async trendingInstruments(since: string, limit: number): Promise<number[]> {
    const rows = await db
      .selectFrom("postTags")
      .select(["instrumentId", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("createdAt", ">=", since)
      .groupBy("instrumentId")
      .orderBy("n", "desc")
      .orderBy("instrumentId")
      .limit(limit)
      .execute();
    return rows.map((r) => r.instrumentId);
  },
});
