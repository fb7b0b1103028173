import { sql } from "kysely";
import { prepared } from "../../../infra/db/prepared.js";
import type { Ids } from "../shared/social.rows.js";
import { flag, visible } from "../shared/visibility.repository.js";

/**
 * The post, tag, mention and stats reads of the discussion path, compiled once per shape
 * (infra/db/prepared.ts): their values are bound, never computed on, inside the builders.
 */
export const postQueries = {
  postsByIds: prepared(
    (db, _: null, [ids]: readonly [Ids]) => db.selectFrom("posts").selectAll().where("id", "in", ids),
    () => "",
  ),

  findPostFor: prepared(
    (db, anon: boolean, [postId, me]: readonly [string, string]) =>
      db
        .selectFrom("posts")
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
          // Shares naming the post as origin, plus those naming it as shared post only: two index
          // searches (one `or` of both columns made SQLite scan every post: 117 ms at 100k posts).
          sql<number | string>`(${eb
            .selectFrom("posts as s")
            .select(eb.fn.countAll<number | string>().as("n"))
            .whereRef("s.sharedOriginPostId", "=", "p.id")
            .where("s.isDeleted", "=", 0)}) + (${eb
            .selectFrom("posts as s")
            .select(eb.fn.countAll<number | string>().as("n"))
            .whereRef("s.sharedPostId", "=", "p.id")
            .where((w) => w.or([w("s.sharedOriginPostId", "is", null), w("s.sharedOriginPostId", "<>", w.ref("p.id"))]))
            .where("s.isDeleted", "=", 0)})`.as("shares"),
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
};
