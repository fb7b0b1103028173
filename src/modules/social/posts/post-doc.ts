import { type DocRanges, DocVariants } from "../shared/discussion-patches.js";
import { docSize, type SharedDoc } from "../shared/shared-documents.js";

/** A post's shared document and who may see it (docs/decisions/0169). */
export interface PostDoc {
  doc: SharedDoc;
  /** Everyone (a visible post or a tombstone), or only its owner (a private profile's post). */
  ownerOnly: boolean;
  ownerId: string;
  /** The post's `seq` (its likes' and comments' `parent.obsoleteId`). */
  seq: number;
  /** Null when the serialization is not laid out as expected: the document is then never patched. */
  ranges: DocRanges | null;
}

/** The key of a post's document for `take` inline comments. */
export const keyOf = (postId: string, take: number) => `P\u0000${postId}\u0000${take}`;
export const postDocSize = (doc: SharedDoc, postId: string) => docSize(doc, postId) + 64;

/**
 * The takes each post's documents were built for (docs/decisions/0198), so that a write finds them
 * without trying every take.
 */
export class PostDocTakes extends DocVariants<number> {}
