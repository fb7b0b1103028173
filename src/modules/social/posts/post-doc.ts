import { lastValueRange, type TextRange } from "../shared/json-text.js";
import { docSize, type SharedDoc } from "../shared/shared-documents.js";

/** A byte range [start, end) of a document. */
export type Range = TextRange;

/** Where a post document's parts that writes change are (docs/decisions/0198). */
export interface DocRanges {
  /** `commentsData`: the comment count and preview. */
  comments: Range;
  /** `emotionsData`: the post's like count and preview. */
  likes: Range;
  /** `summary`: comments and replies, shares. */
  summary: Range;
}

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

/** The ranges of a serialized discussion's own parts: each key's last occurrence is the discussion's. */
export function rangesOf(json: string): DocRanges | null {
  const comments = lastValueRange(json, "commentsData", ',"emotionsData":');
  const likes = lastValueRange(json, "emotionsData", ',"requesterContext":');
  const summary = lastValueRange(json, "summary", "}");
  return comments && likes && summary ? { comments, likes, summary } : null;
}

const NO_TAKES: ReadonlySet<number> = new Set();

/** Posts whose takes are noted before the notes start afresh. */
const MAX_NOTED_POSTS = 50_000;

/**
 * The takes each post's documents were built for (docs/decisions/0198), so that a write finds them
 * without trying every take. A post whose takes were forgotten (the notes start afresh past
 * MAX_NOTED_POSTS) has its documents rebuilt after its next write instead of patched.
 */
export class PostDocTakes {
  private readonly byPost = new Map<string, Set<number>>();

  note(postId: string, take: number): void {
    const takes = this.byPost.get(postId);
    if (takes) takes.add(take);
    else {
      if (this.byPost.size >= MAX_NOTED_POSTS) this.byPost.clear();
      this.byPost.set(postId, new Set([take]));
    }
  }

  of(postId: string): ReadonlySet<number> {
    return this.byPost.get(postId) ?? NO_TAKES;
  }
}
