import { type RawBuilder, sql } from "kysely";
import type { Executor } from "../../../infra/db/executor.js";
import { prepared } from "../../../infra/db/prepared.js";

/** What one caller has done to the entities of one answer: the per-caller part of shared documents. */
export interface CallerMarks {
  /** Posts and comments the caller likes. */
  liked: Set<string>;
  saved: Set<string>;
  pinned: Set<string>;
  /** Posts the caller follows (`isSubscribed` and `isFollowing`). */
  followed: Set<string>;
  /** Poll options the caller voted for. */
  voted: Set<number>;
  /** The caller blocks someone or is blocked by someone: their answers are not shared. */
  blocks: boolean;
  /** The caller's profile is private (feeds then list their own private posts too). */
  isPrivate: boolean;
}

const inList = (column: string, ids: readonly (string | number)[]) =>
  sql`${sql.ref(column)} in (${sql.join(ids.map((id) => sql`${id}`))})`;

/**
 * The union, compiled once per shape: the lengths of the three lists (infra/db/prepared.ts). Each
 * `${me}` is a bound value of its own; a list's arm is left out when the list is empty.
 */
const marksQuery = prepared(
  (
    db,
    _: null,
    [me, likedIds, postIds, optionIds]: readonly [string, readonly string[], readonly string[], readonly number[]],
  ) => {
    const arms: RawBuilder<unknown>[] = [];
    if (likedIds.length > 0) {
      arms.push(
        sql`select 'l' as k, entity_id as id from likes where user_id = ${me} and ${inList("entity_id", likedIds)}`,
      );
    }
    if (postIds.length > 0) {
      for (const [k, table] of [
        ["s", "saves"],
        ["p", "pins"],
        ["f", "post_follows"],
      ] as const) {
        arms.push(
          sql`select ${sql.lit(k)} as k, post_id as id from ${sql.table(table)} where user_id = ${me} and ${inList("post_id", postIds)}`,
        );
      }
    }
    if (optionIds.length > 0) {
      arms.push(
        sql`select 'v' as k, cast(option_id as text) as id from poll_votes where user_id = ${me} and ${inList("option_id", optionIds)}`,
      );
    }
    arms.push(
      sql`select 'b' as k, '' as id where exists (select 1 from user_blocks where blocker_id = ${me}) or exists (select 1 from user_blocks where blocked_id = ${me})`,
    );
    arms.push(sql`select 'x' as k, '' as id from users where id = ${me} and is_private = 1`);
    const query = sql<{ k: string; id: string }>`${sql.join(arms, sql` union all `)}`;
    return { compile: () => query.compile(db) };
  },
  () => "",
);

/**
 * Everything `me` has marked, and whether a block involves them or their profile is private, in
 * one query over indexes that start with the user (migration 029); at most `limit` rows.
 */
const wholeQuery = prepared(
  (db, _: null, [me, limit]: readonly [string, number]) => {
    const query = sql<{ k: string; id: string }>`select 'l' as k, entity_id as id from likes where user_id = ${me}
      union all select 's' as k, post_id as id from saves where user_id = ${me}
      union all select 'p' as k, post_id as id from pins where user_id = ${me}
      union all select 'f' as k, post_id as id from post_follows where user_id = ${me}
      union all select 'v' as k, cast(option_id as text) as id from poll_votes where user_id = ${me}
      union all select 'b' as k, '' as id where exists (select 1 from user_blocks where blocker_id = ${me}) or exists (select 1 from user_blocks where blocked_id = ${me})
      union all select 'x' as k, '' as id from users where id = ${me} and is_private = 1
      limit ${limit}`;
    return { compile: () => query.compile(db) };
  },
  () => "",
);

function marksOf(rows: readonly { k: string; id: string }[]): CallerMarks {
  const marks: CallerMarks = {
    liked: new Set(),
    saved: new Set(),
    pinned: new Set(),
    followed: new Set(),
    voted: new Set(),
    blocks: false,
    isPrivate: false,
  };
  for (const { k, id } of rows) {
    if (k === "l") marks.liked.add(id);
    else if (k === "s") marks.saved.add(id);
    else if (k === "p") marks.pinned.add(id);
    else if (k === "f") marks.followed.add(id);
    else if (k === "v") marks.voted.add(Number(id));
    else if (k === "b") marks.blocks = true;
    else if (k === "x") marks.isPrivate = true;
  }
  return marks;
}

/**
 * The caller's saves, pins and follows of `postIds`, likes of `likedIds` (posts and comments), votes on
 * `optionIds`, and whether any block involves them or their profile is private: one query (a
 * union of primary-key and index lookups), whatever the number of entities.
 */
export async function loadCallerMarks(
  db: Executor,
  me: string,
  postIds: readonly string[],
  likedIds: readonly string[],
  optionIds: readonly number[],
): Promise<CallerMarks> {
  return marksOf(await marksQuery(db, null, [me, likedIds, postIds, optionIds]));
}

/** Every mark of `me` (valid for any entity), or null when they have more than `max` rows of them. */
export async function loadWholeCallerMarks(db: Executor, me: string, max: number): Promise<CallerMarks | null> {
  const rows = await wholeQuery(db, null, [me, max + 1]);
  return rows.length > max ? null : marksOf(rows);
}
