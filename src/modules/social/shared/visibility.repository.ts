import type { ExpressionBuilder } from "kysely";
import type { Database } from "../../../infra/db/schema.js";

type PostsEb = ExpressionBuilder<Database, "posts">;

/** No block between the requester and the owner (`ownerRef`), in either direction: two conditions. */
function noBlockEitherWay(
  // biome-ignore lint/suspicious/noExplicitAny: posts or comments scope; ownerRef names the owner column
  eb: ExpressionBuilder<any, any>,
  requesterId: string,
  ownerRef: "posts.ownerId" | "comments.ownerId",
) {
  return [
    eb.not(
      eb.exists(
        eb
          .selectFrom("userBlocks")
          .select("userBlocks.blockerId")
          .where("userBlocks.blockerId", "=", requesterId)
          .whereRef("userBlocks.blockedId", "=", ownerRef),
      ),
    ),
    eb.not(
      eb.exists(
        eb
          .selectFrom("userBlocks")
          .select("userBlocks.blockerId")
          .whereRef("userBlocks.blockerId", "=", ownerRef)
          .where("userBlocks.blockedId", "=", requesterId),
      ),
    ),
  ];
}

/**
 * What a requester may see: not deleted, not spam, not a private profile's (unless their own),
 * and nothing across a block in either direction. The owner's privacy is a subquery, not a join
 * of `users`: SQLite ran the one-post read 5x faster so (decision 0199).
 */
export function visible(eb: PostsEb, requesterId: string | null) {
  const conditions = [eb("posts.isDeleted", "=", 0), eb("posts.isSpam", "=", 0)];
  const ownerPublic = eb.not(
    eb.exists(
      eb
        .selectFrom("users as owner")
        .select("owner.id")
        .whereRef("owner.id", "=", "posts.ownerId")
        .where("owner.isPrivate", "=", 1),
    ),
  );
  if (requesterId === null) return eb.and([...conditions, ownerPublic]);
  return eb.and([
    ...conditions,
    eb.or([ownerPublic, eb("posts.ownerId", "=", requesterId)]),
    ...noBlockEitherWay(eb, requesterId, "posts.ownerId"),
  ]);
}

/** 1 when the subquery has a row, else 0: an integer on both engines (PostgreSQL's exists is a boolean). */
// biome-ignore lint/suspicious/noExplicitAny: any table scope; the subquery is built by the caller
export const flag = (eb: ExpressionBuilder<any, any>, sub: Parameters<ExpressionBuilder<any, any>["exists"]>[0]) =>
  eb.case().when(eb.exists(sub)).then(1).else(0).end();

export function notBlockedWith(
  eb: ExpressionBuilder<Database, "comments">,
  requesterId: string,
  ownerRef: "comments.ownerId",
) {
  return eb.and(noBlockEitherWay(eb, requesterId, ownerRef));
}
