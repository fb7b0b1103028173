import { changedPost, DocVariants, patchedBy, rangesOf } from "../shared/discussion-patches.js";
import type { Patcher } from "../shared/read-cache.js";
import { docSize, type SharedDoc } from "../shared/shared-documents.js";
import type { PartSerializers } from "../shared/social.schemas.js";
import type { AttachmentForm } from "../shared/social.view.js";
import { FEED_COMMENTS_PREVIEW } from "./read-feed.js";

/*
 * A post's discussion as feeds show it, kept once per attachment form and reactions preview size
 * and shared by every page and caller (docs/decisions/0169, 0192), and patched by the post's new
 * like or plain top-level comment instead of being built again (0210), as a post's own document is
 * (0198, 0209). Its own bytes have the profiles cut out; a patch keeps the cuts of the items it
 * keeps and writes the new item's profile whole.
 */

/** The key of a post's feed document in `form` with `reactions` inline reactions. */
export const feedDocKey = (postId: string, form: AttachmentForm, reactions: number) =>
  `F\u0000${postId}\u0000${form}\u0000${reactions}`;

/** The forms and reactions sizes each post's feed documents were built in. */
export class FeedDocVariants extends DocVariants<string> {
  noteBuilt(postId: string, form: AttachmentForm, reactions: number): void {
    this.note(postId, `${form}\u0000${reactions}`);
  }
}

/** Patches a post's kept feed documents, in every variant noted, on its new like or top-level comment. */
export function feedDocPatcher(variants: FeedDocVariants, serializers: PartSerializers): Patcher {
  return (event, keptValue) => {
    const changed = changedPost(event);
    // An event from an instance older than 0210 names no post seq: its documents are built again.
    if (changed?.postSeq === undefined) return [];
    const { postId, postSeq } = changed;
    const out: { key: string; value: SharedDoc; size: number }[] = [];
    for (const variant of variants.of(postId)) {
      const [form, reactionsText] = variant.split("\u0000") as [AttachmentForm, string];
      const reactions = Number(reactionsText);
      const key = feedDocKey(postId, form, reactions);
      const found = keptValue(key) as SharedDoc | undefined;
      const ranges = found && rangesOf(found.bytes.toString());
      if (!found || !ranges) continue;
      const shown = { comments: FEED_COMMENTS_PREVIEW, reactions, postSeq };
      const patched = patchedBy(event, found, ranges, shown, serializers);
      if (patched) out.push({ key, value: patched.doc, size: docSize(patched.doc, key) });
    }
    return out;
  };
}
