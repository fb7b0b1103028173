import type { Static } from "typebox";
import { isoNow } from "../../../core/clock.js";
import { type Ctx, transact } from "../../context.js";
import { requireWriter } from "../shared/access.js";
import { assemblePosts } from "../shared/assemble.js";
import { socialChanged } from "../shared/changes.js";
import { checkAttachments, checkText, newEntry, Problems } from "../shared/content.js";
import { socialRepository } from "../shared/social.repository.js";
import { type CreatePollBody, MESSAGE_MAX } from "../shared/social.schemas.js";
import type { PostView } from "../shared/social.view.js";

export const POLL_OPTIONS_MIN = 2;
export const POLL_OPTIONS_MAX = 4;

export type CreatePollInput = Static<typeof CreatePollBody>;

/** A poll post. Title and options are immutable afterwards: no operation changes them. */
export async function createPoll(ctx: Ctx, input: CreatePollInput): Promise<PostView> {
  const actor = requireWriter(ctx.actor);
  const p = new Problems();
  const text = checkText(p, "body/message", input.message, MESSAGE_MAX);
  const title = checkText(p, "body/poll/title", input.poll?.title, 200);
  const options = input.poll?.options ?? [];
  if (options.length < POLL_OPTIONS_MIN || options.length > POLL_OPTIONS_MAX) {
    p.add("body/poll/options", `must have ${POLL_OPTIONS_MIN} to ${POLL_OPTIONS_MAX} options`);
  }
  const seen = new Set<number>();
  options.forEach((o, i) => {
    checkText(p, `body/poll/options/${i}/text`, o.text, 100);
    if (!Number.isInteger(o.index) || o.index < 1) p.add(`body/poll/options/${i}/index`, "must be an integer from 1");
    else if (seen.has(o.index)) p.add(`body/poll/options/${i}/index`, `duplicates index ${o.index}`);
    seen.add(o.index);
  });
  const attachments = checkAttachments(p, "body/attachments", input.attachments);
  p.throwIfAny();

  const row = await transact(ctx, async (trx, record) => {
    const repo = socialRepository(trx);
    const now = isoNow(ctx.clock);
    const post = await repo.insertPost({
      ...newEntry(actor.userId, text, attachments, now),
      type: "Poll",
      sharedPostId: null,
      sharedOriginPostId: null,
    });
    await repo.insertPoll(
      post.id,
      title.trim(),
      [...options].sort((a, b) => a.index - b.index).map((o) => ({ index: o.index, text: o.text.trim() })),
    );
    record(socialChanged(now, { postIds: [post.id], listings: true }));
    return post;
  });
  const [view] = await assemblePosts(ctx, [row], actor.userId, "request");
  return view!;
}
