import { systemActor } from "../../core/actor.js";
import { newId } from "../../core/ids.js";
import { mulberry32 } from "../../core/random.js";
import { type Deps, transact, withActor } from "../context.js";
import { createUser } from "../identity/create-user.js";
import { resolveUserRefs, type UserRecord } from "../identity/user-profiles.js";
import { listInstruments } from "../market/find-instruments.js";
import { languageOf } from "./shared/content.js";
import { socialRepository } from "./shared/social.repository.js";

/** Traders who make the seeded feeds lively; every user gets an initials avatar. */
export const SEED_TRADERS = [
  { username: "tradingtom", firstName: "Tom", lastName: "Tanaka", countryCode: 392 },
  { username: "cryptocara", firstName: "Cara", lastName: "Cruz", countryCode: 484 },
  { username: "valuevic", firstName: "Victor", lastName: "Vance", countryCode: 840 },
  { username: "macromia", firstName: "Mia", lastName: "Moreau", countryCode: 250 },
  { username: "chartchen", firstName: "Li", lastName: "Chen", countryCode: 702 },
  { username: "dividenddan", firstName: "Dan", lastName: "Douglas", countryCode: 826 },
  { username: "forexfay", firstName: "Fay", lastName: "Fischer", countryCode: 276 },
  { username: "quantquinn", firstName: "Quinn", lastName: "Quist", countryCode: 36 },
] as const;

export const SEED_POSTS = 300;

/** Deterministic, so every fresh sandbox shows the same world. */
function prng(seed: number) {
  const next = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  const some = <T>(list: readonly T[], n: number): T[] => {
    const copy = [...list];
    const out: T[] = [];
    while (out.length < n && copy.length > 0) out.push(copy.splice(int(copy.length), 1)[0]!);
    return out;
  };
  return { next, int, pick, some };
}

const TEXTS = [
  "$SYM holding above the 50-day average. Adding on dips.",
  "Took partial profits on $SYM today, letting the rest run.",
  "Anyone else watching $SYM into the close? Volume is picking up.",
  "$SYM earnings next week: I expect a beat, guidance is the question.",
  "Trimmed $SYM, the risk/reward is not there at these levels.",
  "Long-term holder of $SYM. Noise does not change the thesis.",
  "Support on $SYM held again. Third test this month.",
  "Opened a small position in $SYM, stop-loss 5% below.",
  "$SYM is my top pick for the quarter. Fundamentals keep improving.",
  "Careful with $SYM here, momentum is fading on the daily chart.",
];
const COMMENTS = [
  "Agreed, good entry.",
  "I am more cautious here.",
  "What is your target?",
  "Thanks for sharing!",
  "Same view, added yesterday.",
  "Interesting take, the chart agrees.",
  "Stop-loss placement makes sense.",
  "Not convinced, but let us see.",
];
const POLLS = [
  { title: "$SYM by the end of the month?", options: ["Higher", "Lower", "Flat"] },
  { title: "Best way to trade $SYM now?", options: ["Buy", "Sell", "Wait"] },
  { title: "Is $SYM overvalued?", options: ["Yes", "No"] },
  { title: "Where is $SYM in a year?", options: ["+20% or more", "+0-20%", "Down", "Much lower"] },
];

/**
 * Idempotent: when there are no posts yet, adds traders, a few hundred posts (discussions,
 * polls, shares) over the last six days across the catalog's instruments, with comments,
 * replies, likes, votes, saves, pins and follows, so that every feed has content at first start.
 * Returns how many posts it created.
 */
export async function seedSocial(deps: Deps, people: readonly string[]): Promise<number> {
  const existing = await deps.db.kysely.selectFrom("posts").select("id").limit(1).execute();
  if (existing.length > 0) return 0;
  const operator = withActor(deps, systemActor("seed"));
  for (const t of SEED_TRADERS) {
    if ((await resolveUserRefs(deps, [t.username])).size === 0) await createUser(operator, t);
  }
  const refs = [...people, ...SEED_TRADERS.map((t) => t.username)];
  const found = await resolveUserRefs(deps, refs);
  const users = refs.map((r) => found.get(r)).filter((u): u is UserRecord => u !== undefined);
  const instruments = (await listInstruments(deps)).slice(0, 40);
  if (users.length < 2 || instruments.length === 0) return 0;

  const r = prng(20_260_101);
  const now = deps.clock.now().getTime();
  const start = now - 6 * 86_400_000;
  const step = (now - 60_000 - start) / SEED_POSTS;
  const at = (ms: number) => new Date(Math.min(ms, now - 1000)).toISOString();
  const demo = users[0]!;
  const privateIds = new Set(users.filter((u) => u.isPrivate).map((u) => u.userId));

  await transact(deps, async (trx) => {
    const repo = socialRepository(trx);
    const posts: { id: string; ownerId: string; time: number; pollId?: number; optionIds?: number[] }[] = [];
    for (let i = 0; i < SEED_POSTS; i++) {
      const time = start + i * step;
      const owner = r.pick(users);
      const instrument = r.pick(instruments);
      const roll = r.next();
      const type = roll < 0.14 ? "Poll" : roll < 0.26 && posts.length > 5 ? "Share" : "Default";
      const shareable = posts.filter((p) => p.ownerId !== owner.userId && !privateIds.has(p.ownerId));
      const shared = type === "Share" && shareable.length > 0 ? r.pick(shareable) : undefined;
      const template = type === "Poll" ? r.pick(POLLS) : undefined;
      const text =
        type === "Share"
          ? r.next() < 0.5
            ? ""
            : "Worth a read."
          : r.pick(TEXTS).replaceAll("$SYM", `$${instrument.symbol}`);
      const post = await repo.insertPost({
        id: newId(),
        ownerId: owner.userId,
        type: shared || type !== "Share" ? type : "Default",
        text: text || "Worth a read.",
        languageCode: languageOf(text),
        attachments: "[]",
        createdAt: at(time),
        updatedAt: at(time),
        editStatus: "None",
        isDeleted: 0,
        isSpam: 0,
        sharedPostId: shared?.id ?? null,
        sharedOriginPostId: shared?.id ?? null,
      });
      const entry: (typeof posts)[number] = { id: post.id, ownerId: owner.userId, time };
      if (type !== "Share") {
        const tagged = [instrument, ...(r.next() < 0.25 ? [r.pick(instruments)] : [])];
        await repo.insertTags(
          [...new Map(tagged.map((t) => [t.instrumentId, t])).values()].map((t, position) => ({
            postId: post.id,
            postSeq: post.seq,
            instrumentId: t.instrumentId,
            position,
            createdAt: at(time),
          })),
        );
      }
      if (template) {
        const poll = await repo.insertPoll(
          post.id,
          template.title.replaceAll("$SYM", instrument.symbol),
          template.options.map((text, k) => ({ index: k + 1, text })),
        );
        const options = await repo.optionsFor([poll.id]);
        entry.pollId = poll.id;
        entry.optionIds = options.map((o) => o.id);
      }
      if (type === "Default" && r.next() < 0.1) {
        const mentioned = r.pick(users.filter((u) => u.userId !== owner.userId));
        await repo.insertMentions(post.id, [{ userId: mentioned.userId, isDirect: true }]);
      }
      posts.push(entry);
    }

    for (const p of posts) {
      const later = (k: number) => at(p.time + (k + 1) * 600_000);
      for (const [k, u] of r.some(users, r.int(9)).entries()) {
        await repo.insertLike({
          id: newId(),
          entityId: p.id,
          entityType: "Post",
          userId: u.userId,
          createdAt: later(k),
        });
      }
      for (let k = 0; k < r.int(4); k++) {
        const comment = await repo.insertComment({
          id: newId(),
          postId: p.id,
          parentId: null,
          ownerId: r.pick(users).userId,
          text: r.pick(COMMENTS),
          languageCode: "en",
          attachments: "[]",
          createdAt: later(k),
          updatedAt: later(k),
          editStatus: "None",
          isDeleted: 0,
          isSpam: 0,
        });
        if (r.next() < 0.3) {
          const { seq: _seq, ...base } = comment;
          await repo.insertComment({
            ...base,
            id: newId(),
            parentId: comment.id,
            ownerId: p.ownerId,
            text: "Thanks, good point.",
            createdAt: later(k + 1),
            updatedAt: later(k + 1),
          });
        }
      }
      if (p.pollId && p.optionIds) {
        for (const u of r.some(users, r.int(users.length))) {
          await repo.upsertVote(p.pollId, u.userId, r.pick(p.optionIds), later(1));
        }
      }
    }

    for (const u of users) {
      const own = posts.filter((p) => p.ownerId === u.userId);
      for (const p of r.some(own, 2)) await repo.addMark("pins", p.id, u.userId, at(p.time + 60_000));
      const saves = u.userId === demo.userId ? 15 : r.int(6);
      for (const p of r.some(posts, saves)) await repo.addMark("saves", p.id, u.userId, at(p.time + 120_000));
      for (const other of r.some(users, u.userId === demo.userId ? 6 : 3)) {
        if (other.userId !== u.userId) await repo.follow(u.userId, other.userId, at(start));
      }
    }
  });
  return SEED_POSTS;
}
