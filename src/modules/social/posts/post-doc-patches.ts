import { changedPost, patchedBy } from "../shared/discussion-patches.js";
import type { Patcher } from "../shared/read-cache.js";
import type { PartSerializers } from "../shared/social.schemas.js";
import { POST_REACTIONS_TAKE } from "./get-post.js";
import { keyOf, type PostDoc, type PostDocTakes, postDocSize } from "./post-doc.js";

/*
 * A post's kept documents patched by a like or a plain top-level comment instead of being built
 * again (docs/decisions/0198, 0209: `shared/discussion-patches.ts`), for every take noted.
 */

/** Patches a post's kept documents, for every take noted, on its new like or top-level comment. */
export function postDocPatcher(takes: PostDocTakes, serializers: PartSerializers): Patcher {
  return (event, keptValue) => {
    const postId = changedPost(event)?.postId;
    if (postId === undefined) return [];
    const out: { key: string; value: PostDoc; size: number }[] = [];
    for (const take of takes.of(postId)) {
      const key = keyOf(postId, take);
      const found = keptValue(key) as PostDoc | undefined;
      if (!found?.ranges) continue;
      const shown = { comments: take, reactions: POST_REACTIONS_TAKE, postSeq: found.seq };
      const patched = patchedBy(event, found.doc, found.ranges, shown, serializers);
      if (patched) out.push({ key, value: { ...found, ...patched }, size: postDocSize(patched.doc, postId) });
    }
    return out;
  };
}
