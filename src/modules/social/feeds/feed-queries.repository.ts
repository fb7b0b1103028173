import { prepared } from "../../../infra/db/prepared.js";
import type { FeedSource } from "../shared/social.rows.js";
import { visible } from "../shared/visibility.repository.js";

/** The value a feed source filters on, and the trending instruments of for-you. */
export function sourceKey(source: FeedSource): { id: string | number; instruments: readonly number[] } {
  switch (source.kind) {
    case "all":
      return { id: "", instruments: [] };
    case "owner":
      return { id: source.ownerId, instruments: [] };
    case "instrument":
      return { id: source.instrumentId, instruments: [] };
    case "following":
      return { id: source.followerId, instruments: [] };
    case "saved":
    case "pinned":
      return { id: source.userId, instruments: [] };
    case "forYou":
      return { id: source.userId, instruments: source.instrumentIds };
  }
}

/** The page read of every feed, compiled once per shape (infra/db/prepared.ts; see post-queries.repository.ts). */
export const feedQueries = {
  feedPage: prepared(
    (
      db,
      shape: { kind: FeedSource["kind"]; anon: boolean; instruments: number },
      [me, id, instrumentIds, limit, offset]: readonly [string, string | number, readonly number[], number, number],
    ) => {
      let q = db
        .selectFrom("posts")
        .selectAll("posts")
        .where((eb) => visible(eb, shape.anon ? null : me));
      switch (shape.kind) {
        case "all":
          q = q.orderBy("posts.seq", "desc");
          break;
        case "owner":
          q = q.where("posts.ownerId", "=", id as string).orderBy("posts.seq", "desc");
          break;
        case "instrument":
          q = q
            .innerJoin("postTags", "postTags.postId", "posts.id")
            .where("postTags.instrumentId", "=", id as number)
            .orderBy("postTags.postSeq", "desc");
          break;
        case "following":
          q = q
            .where("posts.ownerId", "in", (eb) =>
              eb
                .selectFrom("userFollows")
                .select("followeeId")
                .where("followerId", "=", id as string),
            )
            .orderBy("posts.seq", "desc");
          break;
        case "saved":
          q = q
            .innerJoin("saves", "saves.postId", "posts.id")
            .where("saves.userId", "=", id as string)
            .orderBy("saves.seq", "desc");
          break;
        case "pinned":
          q = q
            .innerJoin("pins", "pins.postId", "posts.id")
            .where("pins.userId", "=", id as string)
            .where("posts.ownerId", "=", id as string)
            .orderBy("pins.seq", "desc");
          break;
        case "forYou":
          q = q
            .where("posts.ownerId", "!=", id as string)
            .where((eb) =>
              eb.or([
                eb(
                  "posts.ownerId",
                  "in",
                  eb
                    .selectFrom("userFollows")
                    .select("followeeId")
                    .where("followerId", "=", id as string),
                ),
                ...(shape.instruments > 0
                  ? [
                      eb.exists(
                        eb
                          .selectFrom("postTags")
                          .select("postTags.postId")
                          .whereRef("postTags.postId", "=", "posts.id")
                          .where("postTags.instrumentId", "in", instrumentIds),
                      ),
                    ]
                  : []),
              ]),
            )
            .orderBy("posts.seq", "desc");
          break;
      }
      return q.limit(limit).offset(offset);
    },
    (shape) => `${shape.kind}.${shape.anon}.${shape.instruments > 0}`,
  ),
};
