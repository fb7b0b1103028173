import type { Executor } from "../../../infra/db/executor.js";
import { type CallerMarks, loadCallerMarks, loadWholeCallerMarks } from "./caller-marks.repository.js";
import { type Patcher, userKey } from "./read-cache.js";
import type { SharedParts } from "./shared-documents.js";

/*
 * The per-caller part of shared documents, kept whole per caller (docs/decisions/0191): every like,
 * save, pin, post follow and poll vote of the caller, and whether a block involves them or their
 * profile is private. Loaded once (one query over indexes by user), kept in the read cache under
 * `user:<id>`, which every write that changes one of them names (so on every instance), and then
 * an answer made of kept documents needs no query at all. A caller with more marks than
 * MAX_KEPT_MARKS is asked per answer, for the entities it shows, as before.
 */

export const MAX_KEPT_MARKS = 5_000;

const keyOf = (me: string) => `M\u0000${me}`;

/** Bytes charged for kept marks: the ids, and each set's and entry's own weight. */
function sizeOf(marks: CallerMarks): number {
  let bytes = 256;
  for (const set of [marks.liked, marks.saved, marks.pinned, marks.followed]) {
    for (const id of set) bytes += id.length * 2 + 40;
  }
  return bytes + marks.voted.size * 24;
}

/** The caller's kept marks, at once; undefined when they are not kept. */
export function keptCallerMarks(parts: SharedParts, me: string): CallerMarks | undefined {
  return parts.peek<CallerMarks>(keyOf(me));
}

/**
 * The caller's marks for an answer showing `postIds` (and likes of `likedIds`, votes on
 * `optionIds`): the kept whole set, loaded when missing; per answer for a caller with too many.
 */
export async function callerMarks(
  parts: SharedParts,
  db: Executor,
  me: string,
  postIds: readonly string[],
  /** The entities whose marks the answer needs, asked only when the caller's marks are not kept. */
  marked: () => { likedIds: readonly string[]; optionIds: readonly number[] },
): Promise<CallerMarks> {
  const key = keyOf(me);
  const [kept] = await parts.get<CallerMarks>([key], async () => {
    const whole = await loadWholeCallerMarks(db, me, MAX_KEPT_MARKS);
    return new Map(whole ? [[key, { value: whole, size: sizeOf(whole), deps: [userKey(me)], renewable: true }]] : []);
  });
  if (kept) return kept;
  const { likedIds, optionIds } = marked();
  return loadCallerMarks(db, me, postIds, likedIds, optionIds);
}

/** Marks of every kind, counted as `loadWholeCallerMarks` counts them against MAX_KEPT_MARKS. */
const countOf = (m: CallerMarks) => m.liked.size + m.saved.size + m.pinned.size + m.followed.size + m.voted.size;

/**
 * Adds a caller's new like of a post to their kept marks instead of loading them again
 * (docs/decisions/0198); marks that would pass MAX_KEPT_MARKS are dropped as before.
 */
export const marksPatcher: Patcher = (event, keptValue) => {
  const like = event.like;
  if (!like) return [];
  const key = keyOf(like.userId);
  const marks = keptValue(key) as CallerMarks | undefined;
  if (!marks || countOf(marks) >= MAX_KEPT_MARKS) return [];
  const value: CallerMarks = { ...marks, liked: new Set(marks.liked).add(like.postId) };
  return [{ key, value, size: sizeOf(value) }];
};
