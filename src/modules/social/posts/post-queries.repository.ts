import { sql } from "kysely";
import { prepared } from "../../../infra/db/prepared.js";
import type { FeedSource, Ids } from "../shared/social.rows.js";
import { flag, visible } from "../shared/visibility.repository.js";

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

/** The post, feed, tag, mention, stats and poll reads of the discussion path (see read-queries.repository.ts). */
export const postQueries = {
  postsByIds: prepared(
    (db, _: null, [ids]: readonly [Ids]) => db.selectFrom("posts").selectAll().where("id", "in", ids),
    () => "",
  ),

  findPostFor: prepared(
    (db, anon: boolean, [postId, me]: readonly [string, string]) =>
      db
        .selectFrom("posts")
        .innerJoin("users as owner", "owner.id", "posts.ownerId")
        .selectAll("posts")
        .select((eb) =>
          eb
            .case()
            .when(visible(eb, anon ? null : me))
            .then(1)
            .else(0)
            .end()
            .as("visible"),
        )
        .where("posts.id", "=", postId),
    (anon) => String(anon),
  ),

  feedPage: prepared(
    (
      db,
      shape: { kind: FeedSource["kind"]; anon: boolean; instruments: number },
      [me, id, instrumentIds, limit, offset]: readonly [string, string | number, readonly number[], number, number],
    ) => {
      let q = db
        .selectFrom("posts")
        .innerJoin("users as owner", "owner.id", "posts.ownerId")
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

  tagsFor: prepared(
    (db, _: null, [postIds]: readonly [Ids]) =>
      db.selectFrom("postTags").selectAll().where("postId", "in", postIds).orderBy("position"),
    () => "",
  ),

  tagsAndMentions: prepared(
    (db, _: null, [postIds, entityIds]: readonly [Ids, Ids]) =>
      db
        .selectFrom("postTags")
        .select([
          sql<"tag" | "mention">`'tag'`.as("kind"),
          "postId as entityId",
          sql<string>`cast(instrument_id as text)`.as("ref"),
          sql<number>`0`.as("isDirect"),
          "position",
        ])
        .where("postId", "in", postIds)
        .unionAll(
          db
            .selectFrom("mentions")
            .select([sql<"tag" | "mention">`'mention'`.as("kind"), "entityId", "userId as ref", "isDirect", "position"])
            .where("entityId", "in", entityIds),
        )
        .orderBy("position"),
    () => "",
  ),

  mentionsFor: prepared(
    (db, _: null, [entityIds]: readonly [Ids]) =>
      db.selectFrom("mentions").selectAll().where("entityId", "in", entityIds).orderBy("position"),
    () => "",
  ),

  postStats: prepared(
    (db, _: null, [postIds, me]: readonly [Ids, string]) =>
      db
        .selectFrom("posts as p")
        .select((eb) => [
          "p.id",
          eb
            .selectFrom("comments as c")
            .select(eb.fn.countAll<number | string>().as("n"))
            .whereRef("c.postId", "=", "p.id")
            .where("c.isDeleted", "=", 0)
            .where("c.isSpam", "=", 0)
            .as("commentsAll"),
          eb
            .selectFrom("comments as c")
            .select(eb.fn.countAll<number | string>().as("n"))
            .whereRef("c.postId", "=", "p.id")
            .where("c.parentId", "is", null)
            .where("c.isDeleted", "=", 0)
            .where("c.isSpam", "=", 0)
            .as("commentsTop"),
          eb
            .selectFrom("posts as s")
            .select(eb.fn.countAll<number | string>().as("n"))
            .where((w) =>
              w.or([w("s.sharedOriginPostId", "=", w.ref("p.id")), w("s.sharedPostId", "=", w.ref("p.id"))]),
            )
            .where("s.isDeleted", "=", 0)
            .as("shares"),
          flag(
            eb,
            eb
              .selectFrom("likes as m")
              .select("m.entityId")
              .whereRef("m.entityId", "=", "p.id")
              .where("m.userId", "=", me),
          ).as("liked"),
          flag(
            eb,
            eb.selectFrom("saves as m").select("m.postId").whereRef("m.postId", "=", "p.id").where("m.userId", "=", me),
          ).as("saved"),
          flag(
            eb,
            eb.selectFrom("pins as m").select("m.postId").whereRef("m.postId", "=", "p.id").where("m.userId", "=", me),
          ).as("pinned"),
          flag(
            eb,
            eb
              .selectFrom("postFollows as m")
              .select("m.postId")
              .whereRef("m.postId", "=", "p.id")
              .where("m.userId", "=", me),
          ).as("followed"),
        ])
        .where("p.id", "in", postIds),
    () => "",
  ),

  pollsWithOptions: prepared(
    (db, _: null, [postIds, userId]: readonly [Ids, string]) =>
      db
        .selectFrom("polls")
        .innerJoin("pollOptions", "pollOptions.pollId", "polls.id")
        .leftJoin("pollVotes", "pollVotes.optionId", "pollOptions.id")
        .select((eb) => [
          "polls.postId",
          "polls.title",
          "pollOptions.id",
          "pollOptions.pollId",
          "pollOptions.idx",
          "pollOptions.text",
          eb.fn.count<number | string>("pollVotes.userId").as("votes"),
          eb.fn.max<number | string>(eb.case().when("pollVotes.userId", "=", userId).then(1).else(0).end()).as("mine"),
        ])
        .where("polls.postId", "in", postIds)
        .groupBy([
          "polls.postId",
          "polls.title",
          "pollOptions.id",
          "pollOptions.pollId",
          "pollOptions.idx",
          "pollOptions.text",
        ])
        .orderBy("pollOptions.idx"),
    () => "",
  ),
};
