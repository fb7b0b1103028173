import { isUuid } from "../../../core/ids.js";
import type { Ctx } from "../../context.js";
import { requireReader } from "../shared/access.js";
import { assembleDiscussions } from "../shared/assemble.js";
import { callerMarks } from "../shared/caller-marks.js";
import { dependenciesOf, LISTINGS, listingKey } from "../shared/read-cache.js";
import {
  type Built,
  docSize,
  pushOverlaid,
  type SharedDoc,
  type SharedParts,
  sharedDocOf,
} from "../shared/shared-documents.js";
import { socialRepository } from "../shared/social.repository.js";
import type { PostRow } from "../shared/social.rows.js";
import { type DiscussionView, type FeedPageView, toFeedPage } from "../shared/social.view.js";
import { type FeedDocVariants, feedDocKey } from "./feed-docs.js";
import { sourceKey } from "./feed-queries.repository.js";
import {
  FEED_COMMENTS_PREVIEW,
  type FeedFrame,
  type FeedQuery,
  type FeedRequest,
  feedFrame,
  pagingOf,
} from "./read-feed.js";

/*
 * Feeds whose listing is the same for every caller who neither blocks nor is blocked by anyone
 * and whose own profile is public (news, an instrument's, a user's): the page's post ids are
 * kept per feed and page (invalidated by `listings`), each discussion is a shared document
 * (docs/decisions/0169) and the caller's marks for the page come in one query (0170).
 */

/** Feeds answered from shared listings and documents. */
export const sharesListing = (request: FeedRequest): boolean =>
  request.feed === "news" || request.feed === "instrument" || request.feed === "user";

/**
 * The resolved frame of a feed request. A user named by gcid or by id (a UUID, never read as a
 * name) and an instrument by id resolve to the same thing for ever: their resolution is kept (no
 * query per page); a name is resolved each time (a user may rename).
 */
export async function sharedFrame(
  ctx: Ctx,
  parts: SharedParts,
  request: FeedRequest,
  query: FeedQuery,
): Promise<FeedFrame> {
  const ref = request.feed === "user" ? request.userId : request.feed === "instrument" ? request.marketId : "";
  const alias = request.feed === "user" || request.feed === "instrument" ? request.alias : false;
  if (!/^\d{1,9}$/.test(ref) && !(request.feed === "user" && isUuid(ref))) return feedFrame(ctx, request, query);
  const key = `R\u0000${request.feed}\u0000${ref}\u0000${alias}`;
  const at = { take: query.take, offset: query.offset };
  const kept = parts.peek<FeedFrame>(key);
  if (kept) return { ...kept, ...at };
  const since = parts.cache.current;
  const frame = await feedFrame(ctx, request, query);
  parts.cache.keep(key, frame, key.length * 2 + frame.path.length * 2 + 256, [], since);
  return frame;
}

const OPEN = Buffer.from('{"discussions":[');
const EMPTY = '{"discussions":[]';
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");

/** A listing: the ids of one page (and one row more, which says whether a next page exists). */
interface Listing {
  ids: string[];
}

/** The rows a listing's build read, and the generation its build started at. */
interface KnownRows {
  rows: Map<string, PostRow>;
  since: number;
}

/** The ids of one page of a listing-sharing feed, and its rows when they were read just now. */
async function listingOf(ctx: Ctx, parts: SharedParts, frame: FeedFrame): Promise<{ ids: string[]; known: KnownRows }> {
  const { source, offset, take } = frame;
  const id = sourceKey(source).id;
  const key = `L\u0000${source.kind}\u0000${id}\u0000${offset}\u0000${take + 1}`;
  // A new post elsewhere leaves this listing as it is (decision 0178)
  const deps =
    source.kind === "all" || source.kind === "owner" || source.kind === "instrument"
      ? [LISTINGS, listingKey(source.kind, id)]
      : [LISTINGS];
  const known: KnownRows = { rows: new Map(), since: parts.cache.current };
  const [listing] = await parts.get<Listing>([key], async () => {
    known.since = parts.cache.current;
    const page = await socialRepository(ctx.db.kysely).feedPage(source, null, offset, take + 1);
    for (const r of page) known.rows.set(r.id, r);
    const ids = page.map((r) => r.id);
    const size = ids.reduce((n, id) => n + id.length * 2 + 16, key.length * 2 + 96);
    return new Map([[key, { value: { ids }, size, deps }]]);
  });
  return { ids: listing?.ids ?? [], known };
}

/** The shared documents of `ids` as this feed's discussions (fragments of a page's array). */
async function docsOf(
  ctx: Ctx,
  parts: SharedParts,
  variants: FeedDocVariants,
  frame: FeedFrame,
  query: FeedQuery,
  ids: readonly string[],
  { rows: known, since: knownSince }: KnownRows,
  serialize: (page: FeedPageView) => string,
): Promise<(SharedDoc | undefined)[]> {
  const reactionsTake = query.reactionsPageSize;
  const keyOf = (id: string) => feedDocKey(id, frame.form, reactionsTake);
  const idOf = new Map(ids.map((id) => [keyOf(id), id]));
  return parts.get<SharedDoc>(ids.map(keyOf), async (missing): Promise<Built<SharedDoc>> => {
    const wanted = missing.map((k) => idOf.get(k)!);
    const have = wanted.flatMap((id) => (known.has(id) ? [known.get(id)!] : []));
    const read = await socialRepository(ctx.db.kysely).postsByIds(wanted.filter((id) => !known.has(id)));
    const byId = new Map([...have, ...read].map((r) => [r.id, r]));
    const rows = wanted.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
    const owners = new Map<string, string>();
    const discussions = await assembleDiscussions(ctx, rows, {
      requesterId: null,
      commentsTake: FEED_COMMENTS_PREVIEW,
      withReplies: false,
      reactionsTake,
      form: frame.form,
      owners,
    });
    const built: Built<SharedDoc> = new Map();
    for (const [i, row] of rows.entries()) {
      const page = toFeedPage([discussions[i]!] as DiscussionView[], { next: "", offSet: 0, take: 1 }, frame.stream);
      const json = serialize(page);
      const end = json.lastIndexOf('],"paging":');
      if (!json.startsWith(OPEN.toString()) || end < 0) continue;
      const doc = sharedDocOf(json.slice(OPEN.length, end), owners, { cutProfiles: true });
      if (!doc) continue;
      const key = keyOf(row.id);
      const deps = dependenciesOf([row], null);
      // A row the listing read is as of the listing's build, before this one's start (0212).
      const since = known.has(row.id) ? knownSince : undefined;
      built.set(key, { value: doc, size: docSize(doc, key), deps, renewable: true, since });
      variants.noteBuilt(row.id, frame.form, reactionsTake);
    }
    return built;
  });
}

/**
 * A listing-sharing feed's page for the caller, as the parts its bytes are joined from (the route
 * joins them: decision 0206), or undefined when the caller must be answered per caller (a block, a
 * private profile, a discussion that could not be shared).
 */
export async function sharedFeedAnswer(
  ctx: Ctx,
  parts: SharedParts,
  variants: FeedDocVariants,
  frame: FeedFrame,
  query: FeedQuery,
  serialize: (page: FeedPageView) => string,
): Promise<Buffer[] | undefined> {
  const me = requireReader(ctx.actor).userId;
  const { ids, known } = await listingOf(ctx, parts, frame);
  const pageIds = ids.slice(0, frame.take);
  const docs = await docsOf(ctx, parts, variants, frame, query, pageIds, known, serialize);
  if (docs.some((d) => d === undefined)) return undefined;
  const shown = docs as SharedDoc[];
  const marks = await callerMarks(parts, ctx.db.kysely, me, pageIds, () => ({
    likedIds: shown.flatMap((d) => d.likedIds),
    optionIds: shown.flatMap((d) => d.optionIds),
  }));
  if (marks.blocks || marks.isPrivate) return undefined;
  const envelope = serialize(
    toFeedPage([], pagingOf(frame.path, query, frame.offset, frame.take, ids.length > frame.take), frame.stream),
  );
  if (!envelope.startsWith(EMPTY)) return undefined;
  const out: Buffer[] = [OPEN];
  for (const [i, doc] of shown.entries()) {
    if (i > 0) out.push(COMMA);
    pushOverlaid(out, doc, me, marks);
  }
  out.push(CLOSE, Buffer.from(envelope.slice(EMPTY.length)));
  return out;
}
