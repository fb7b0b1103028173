import type { Static } from "typebox";
import { isoNow } from "../../../core/clock.js";
import { type Ctx, transact } from "../../context.js";
import { checkMediaReferences, markMediaReferenced } from "../../media/media-references.js";
import { requireWriter } from "../shared/access.js";
import { assemblePosts } from "../shared/assemble.js";
import { socialChanged } from "../shared/changes.js";
import { checkAttachments, checkText, newEntry, Problems } from "../shared/content.js";
import { socialRepository } from "../shared/social.repository.js";
import { type CreatePollBody, MESSAGE_MAX } from "../shared/social.schemas.js";
import type { PostView } from "../shared/social.view.js";

export type CreatePollInput = Static<typeof CreatePollBody>;

/**
 * A poll post. Title and options are immutable afterwards: no operation changes them. The schema
 * bounds the title and option lengths, the number of options and each index; what it cannot say
 * is checked here: text that is only spaces, and an index used twice.
 */
export async function createPoll(ctx: Ctx, input: CreatePollInput): Promise<PostView> {
  const actor = requireWriter(ctx.actor);
  const p = new Problems();
  const text = checkText(p, "message", input.message, MESSAGE_MAX);
  const title = checkText(p, "poll.title", input.poll.title, Number.POSITIVE_INFINITY);
  const options = input.poll.options;
  const seen = new Set<number>();
  options.forEach((o, i) => {
    checkText(p, `poll.options[${i}].text`, o.text, Number.POSITIVE_INFINITY);
    if (seen.has(o.index))
      p.add(`poll.options[${i}].index`, `must be unique within the poll; ${o.index} is used twice`);
    seen.add(o.index);
  });
  const attachments = checkAttachments(p, "attachments", input.attachments);
  const uploads = await checkMediaReferences(ctx, p, "attachments", attachments, actor.userId);
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
    await markMediaReferenced(trx, uploads, now);
    await repo.insertPoll(
      post.id,
      title.trim(),
      [...options].sort((a, b) => a.index - b.index).map((o) => ({ index: o.index, text: o.text.trim() })),
    );
    record(socialChanged(now, { postIds: [post.id], listed: { ownerId: actor.userId, instrumentIds: [] } }));
    return post;
  });
  const [view] = await assemblePosts(ctx, [row], actor.userId, "request");
  return view!;
}
