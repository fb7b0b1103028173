import type { Executor } from "../../../infra/db/executor.js";
import { prepared } from "../../../infra/db/prepared.js";
import { count, type Ids, type PollOptionRow, type PollRow } from "../shared/social.rows.js";

/** The read of the discussion path, compiled once (infra/db/prepared.ts; see posts/post-queries.repository.ts). */
const Q = {
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

export const pollsRepository = (db: Executor) => ({
  async insertPoll(postId: string, title: string, options: { index: number; text: string }[]) {
    const poll = await db.insertInto("polls").values({ postId, title }).returningAll().executeTakeFirstOrThrow();
    await db
      .insertInto("pollOptions")
      .values(options.map((o) => ({ pollId: poll.id, idx: o.index, text: o.text })))
      .execute();
    return poll;
  },

  /**
   * The polls of the posts with their options, vote counts and whether `userId` voted for each
   * option: one query (a poll always has options).
   */
  async pollsWithOptions(
    postIds: readonly string[],
    userId: string | null,
  ): Promise<{ poll: PollRow; options: (PollOptionRow & { votes: number; mine: boolean })[] }[]> {
    if (postIds.length === 0) return [];
    const rows = await Q.pollsWithOptions(db, null, [postIds, userId ?? ""]);
    const byPoll = new Map<number, { poll: PollRow; options: (PollOptionRow & { votes: number; mine: boolean })[] }>();
    for (const r of rows) {
      let entry = byPoll.get(r.pollId);
      if (!entry) {
        entry = { poll: { id: r.pollId, postId: r.postId, title: r.title }, options: [] };
        byPoll.set(r.pollId, entry);
      }
      entry.options.push({
        id: r.id,
        pollId: r.pollId,
        idx: r.idx,
        text: r.text,
        votes: count(r.votes),
        mine: count(r.mine) === 1,
      });
    }
    return [...byPoll.values()];
  },

  async optionsFor(pollIds: readonly number[]): Promise<PollOptionRow[]> {
    if (pollIds.length === 0) return [];
    return db.selectFrom("pollOptions").selectAll().where("pollId", "in", pollIds).orderBy("idx").execute();
  },

  async findPollOption(postId: string, pollId: number, optionId: number) {
    return db
      .selectFrom("polls")
      .leftJoin("pollOptions", (j) =>
        j.onRef("pollOptions.pollId", "=", "polls.id").on("pollOptions.id", "=", optionId),
      )
      .select(["polls.id as pollId", "polls.postId", "pollOptions.id as optionId"])
      .where("polls.id", "=", pollId)
      .executeTakeFirst()
      .then((r) => (r ? { ...r, belongsToPost: r.postId === postId } : undefined));
  },

  /** One vote per user and poll: insert, or move the existing vote (a single guarded statement). */
  async upsertVote(pollId: number, userId: string, optionId: number, at: string): Promise<void> {
    await db
      .insertInto("pollVotes")
      .values({ pollId, userId, optionId, createdAt: at })
      .onConflict((oc) => oc.columns(["pollId", "userId"]).doUpdateSet({ optionId, createdAt: at }))
      .execute();
  },

  async removeVote(pollId: number, userId: string, optionId: number): Promise<boolean> {
    const r = await db
      .deleteFrom("pollVotes")
      .where("pollId", "=", pollId)
      .where("userId", "=", userId)
      .where("optionId", "=", optionId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  },
});
