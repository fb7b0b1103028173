import type { CallerMarks } from "./caller-marks.repository.js";
import { byteOffsets, objectEnd } from "./json-text.js";
import type { DependencyKey, SocialReadCache } from "./read-cache.js";

/*
 * A discussion's caller-independent document, serialized once and shared by every caller
 * (docs/decisions/0169, 0170).
 *
 * The document is the route's own serialization of the discussion as a caller with no marks sees
 * it: every per-caller flag (`isOwner`, `isLiking`, `isSaved`, `isPinned`, `isSubscribed`,
 * `isFollowing`, `isUserVoted`) reads `false`. Each of those `false`s is a *slot*: its byte offset
 * and what decides it (the post or comment it belongs to, the owner, the poll option). A caller's
 * answer is the document with the slots that are true for that caller rewritten to `true`, by
 * concatenating the bytes around them: no object is built and nothing is serialized per request.
 * A caller with no true slot is sent the shared bytes themselves.
 *
 * Callers involved in a block (either way) see profiles and previews differently: they are not
 * answered from shared documents (the caller's marks say so, loaded with the same query).
 */

/** What decides a slot: the caller owns `ref` (a user id), or marked the entity `ref`. */
export const OWNER = 0;
export const LIKED = 1;
export const SAVED = 2;
export const PINNED = 3;
export const FOLLOWED = 4;
export const VOTED = 5;

export interface Slot {
  /** Byte offset of the slot's `false`. */
  at: number;
  kind: number;
  /** User id (OWNER), post or comment id, or poll option id (VOTED). */
  ref: string | number;
}

export interface SharedDoc {
  /** The document's own bytes: its serialization less the profile fragments cut out of it. */
  bytes: Buffer;
  /** Offsets in `bytes` (ascending) where `fragments[i]` goes back in. */
  cuts: number[];
  /** Profiles (`"owner":{…}`'s object), each shared by every document that shows it. */
  fragments: Buffer[];
  /** Slots, at offsets in `bytes` (never inside a fragment). */
  slots: Slot[];
  /** Posts and comments whose likes, and poll options whose votes, the caller's part needs. */
  likedIds: string[];
  optionIds: number[];
}

const SLOT = /"(isOwner|isSubscribed|isLiking|isSaved|isPinned|isFollowing|isUserVoted)":(false|true)/g;
const ANY_SLOT = new RegExp(SLOT.source);
const FALSE = 5;
const TRUE = Buffer.from("true");

interface Expected {
  name: string;
  kind: number;
  ref: string | number;
}

/** The slots of a parsed discussion, in the order the serializer wrote them (its keys' order). */
function expectedSlots(node: unknown, owners: ReadonlyMap<string, string>, out: Expected[]): boolean {
  if (Array.isArray(node)) return node.every((item) => expectedSlots(item, owners, out));
  if (node === null || typeof node !== "object") return true;
  const obj = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(obj)) {
    if (key === "requesterContext" && value !== null && typeof value === "object") {
      const isPost = "post" in obj;
      const id = String(isPost ? obj.id : (obj.entity as { id?: unknown } | undefined)?.id);
      const owner = owners.get(id);
      if (owner === undefined || (!isPost && !("entity" in obj))) return false;
      for (const name of Object.keys(value)) {
        if (name === "isOwner") out.push({ name, kind: OWNER, ref: owner });
        else if (name === "isLiking") out.push({ name, kind: LIKED, ref: id });
        else if (!isPost) continue;
        else if (name === "isSaved") out.push({ name, kind: SAVED, ref: id });
        else if (name === "isPinned") out.push({ name, kind: PINNED, ref: id });
        else if (name === "isSubscribed" || name === "isFollowing") out.push({ name, kind: FOLLOWED, ref: id });
      }
      continue;
    }
    if (key === "isUserVoted") {
      if (typeof obj.id !== "number") return false;
      out.push({ name: key, kind: VOTED, ref: obj.id });
      continue;
    }
    if (!expectedSlots(value, owners, out)) return false;
  }
  return true;
}

/*
 * Profile fragments (docs/decisions/0192). Each like in a preview, each comment and the post itself
 * carry their owner's profile, about 450 bytes, and a feed's likes previews are mostly the same few
 * hundred profiles over and over: 80% of a document's bytes were copies. A document keeps its own
 * bytes with the profiles cut out, and each profile once for every document, interned by its text
 * (a changed profile is another text, so nothing is invalidated here). The table is cleared when
 * it reaches MAX_FRAGMENTS texts: documents keep the buffers they hold, new ones intern afresh.
 */
export const MAX_FRAGMENTS = 20_000;
const interned = new Map<string, Buffer>();
const OWNER_AT = '"owner":{';

/** Interned fragments' count (for tests and figures). */
export const internedFragments = (): number => interned.size;

function intern(text: string, bytes: Buffer): Buffer {
  let kept = interned.get(text);
  if (kept === undefined) {
    if (interned.size >= MAX_FRAGMENTS) interned.clear();
    kept = copied([bytes], bytes.length);
    interned.set(text, kept);
  }
  return kept;
}

/** `pieces` in a buffer of its own: never a slice of the shared pool, which it would keep alive. */
function copied(pieces: readonly Buffer[], length: number): Buffer {
  const out = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const piece of pieces) at += piece.copy(out, at);
  return out;
}

/** Char ranges [start, end) of the profile objects in `json` (the values of `"owner"` keys), in order. */
function profileRanges(json: string): [number, number][] {
  const out: [number, number][] = [];
  for (let i = json.indexOf(OWNER_AT); i >= 0; ) {
    const start = i + OWNER_AT.length - 1;
    const end = objectEnd(json, start);
    if (end < 0) break;
    out.push([start, end]);
    i = json.indexOf(OWNER_AT, end);
  }
  return out;
}

/**
 * `full` with its profile fragments cut out (`ranges`: char ranges in `json`), `slots` moved to
 * offsets in what is left. A range holding a slot stays in place.
 */
function cutProfiles(json: string, full: Buffer, slots: Slot[]): Pick<SharedDoc, "bytes" | "cuts" | "fragments"> {
  const ranges = profileRanges(json);
  const offsets = byteOffsets(json, ranges.flat());
  const pieces: Buffer[] = [];
  const cuts: number[] = [];
  const fragments: Buffer[] = [];
  let from = 0;
  let removed = 0;
  let s = 0;
  for (const [r, [startChar, endChar]] of ranges.entries()) {
    const start = offsets[2 * r]!;
    const end = offsets[2 * r + 1]!;
    for (; s < slots.length && slots[s]!.at < start; s++) slots[s]!.at -= removed;
    if (s < slots.length && slots[s]!.at < end) continue;
    pieces.push(full.subarray(from, start));
    cuts.push(start - removed);
    fragments.push(intern(json.slice(startChar, endChar), full.subarray(start, end)));
    removed += end - start;
    from = end;
  }
  for (; s < slots.length; s++) slots[s]!.at -= removed;
  pieces.push(full.subarray(from));
  return { bytes: copied(pieces, full.length - removed), cuts, fragments };
}

/**
 * The shared document of a serialized discussion (`json`, every per-caller flag false), with
 * `owners` mapping its post and comment ids to their owners. Null when the text and the parsed
 * document do not agree slot for slot (then the discussion is answered per caller, as before).
 * `cutProfiles`: the profiles are cut out and shared (feed pages, which are copied together per
 * answer anyway); else the bytes stay whole, so a caller with nothing true is sent them as they are.
 */
export function sharedDocOf(
  json: string,
  owners: ReadonlyMap<string, string>,
  { cutProfiles: cut }: { cutProfiles: boolean },
): SharedDoc | null {
  const slots = slotsOf(json, owners);
  if (!slots) return null;
  const full = Buffer.from(json);
  const own = cut ? cutProfiles(json, full, slots) : { bytes: copied([full], full.length), cuts: [], fragments: [] };
  return { ...own, slots, ...markedIds(slots) };
}

/**
 * The slots of a serialized discussion (or part of one), at byte offsets; null if text and parse
 * disagree. `view`: the value `json` was serialized from, walked instead of parsing `json` (its
 * keys in the serializer's order; a value in another order disagrees, and so gives null).
 */
function slotsOf(json: string, owners: ReadonlyMap<string, string>, view?: unknown): Slot[] | null {
  // Every expected slot is under a `requesterContext` or is an `isUserVoted` key. Neither key can
  // be inside a string (there its quotes are escaped), so a text without both has no slot to
  // expect and needs no parse: a likes preview, a summary (0199).
  if (!json.includes('"requesterContext":') && !json.includes('"isUserVoted":')) {
    return ANY_SLOT.test(json) ? null : [];
  }
  const expected: Expected[] = [];
  if (!expectedSlots(view ?? JSON.parse(json), owners, expected)) return null;
  const slots: Slot[] = [];
  // In a text of one-byte characters only, a character's index is its byte offset.
  const ascii = Buffer.byteLength(json) === json.length;
  let bytes = 0;
  let last = 0;
  for (const match of json.matchAll(SLOT)) {
    const want = expected[slots.length];
    if (!want || want.name !== match[1] || match[2] !== "false") return null;
    const valueAt = match.index + match[0].length - FALSE;
    bytes = ascii ? valueAt : bytes + Buffer.byteLength(json.slice(last, valueAt));
    last = valueAt;
    slots.push({ at: bytes, kind: want.kind, ref: want.ref });
  }
  return slots.length === expected.length ? slots : null;
}

const markedIds = (slots: readonly Slot[]) => ({
  likedIds: slots.filter((s) => s.kind === LIKED).map((s) => s.ref as string),
  optionIds: slots.filter((s) => s.kind === VOTED).map((s) => s.ref as number),
});

/**
 * What goes in place of a document's range (`spliced`): new text, a value serialized as the route
 * does, whose slots are found as `sharedDocOf` finds them (`view`: the value serialized, if at
 * hand); or the document's own bytes [from, to) inside the range, kept with their slots and the
 * profiles cut out of them.
 */
export type Piece = { text: string; view?: unknown } | { from: number; to: number };

/**
 * `doc` with its bytes [at, end) replaced by `pieces` (docs/decisions/0198, 0209, 0210); `owners`:
 * the owners of the entities the new texts show. New texts keep their profiles whole; a profile cut
 * out of the range goes with its bytes: kept in a kept range, else dropped. Slots and cuts after the
 * range move with it. Undefined when the slots of a text are not as expected, or the ranges are not
 * within the range and in order (the caller rebuilds).
 */
export function spliced(
  doc: SharedDoc,
  at: number,
  end: number,
  pieces: readonly Piece[],
  owners: ReadonlyMap<string, string>,
): SharedDoc | undefined {
  const { bytes } = doc;
  const parts: Buffer[] = [bytes.subarray(0, at)];
  const slots = doc.slots.filter((s) => s.at < at);
  const cuts: number[] = [];
  const fragments: Buffer[] = [];
  // A cut follows the bytes that end at it (its `"owner":`): those of (from, to] keep it.
  const keepCuts = (from: number, to: number, shift: number) => {
    for (const [i, c] of doc.cuts.entries()) {
      if (c > from && c <= to) {
        cuts.push(c + shift);
        fragments.push(doc.fragments[i]!);
      }
    }
  };
  keepCuts(-1, at, 0);
  let length = at;
  // Ranges in order, so that the slots and cuts they carry stay in ascending order.
  let next = at;
  for (const piece of pieces) {
    if ("text" in piece) {
      const inner = slotsOf(piece.text, owners, piece.view);
      if (!inner) return undefined;
      for (const s of inner) slots.push({ ...s, at: s.at + length });
      const value = Buffer.from(piece.text);
      parts.push(value);
      length += value.length;
    } else {
      if (piece.from < next || piece.to > end || piece.from > piece.to) return undefined;
      next = piece.to;
      for (const s of doc.slots)
        if (s.at >= piece.from && s.at < piece.to) slots.push({ ...s, at: s.at - piece.from + length });
      keepCuts(piece.from, piece.to, length - piece.from);
      parts.push(bytes.subarray(piece.from, piece.to));
      length += piece.to - piece.from;
    }
  }
  const shift = length - end;
  for (const s of doc.slots) if (s.at >= end) slots.push({ ...s, at: s.at + shift });
  keepCuts(end, Number.POSITIVE_INFINITY, shift);
  parts.push(bytes.subarray(end));
  return { bytes: copied(parts, bytes.length + shift), cuts, fragments, slots, ...markedIds(slots) };
}

/**
 * Bytes a document is charged in the cache: its own bytes, its slots and its references to
 * fragments (the fragments themselves are held once, in a table of at most MAX_FRAGMENTS).
 */
export const docSize = (doc: SharedDoc, key: string): number =>
  doc.bytes.length +
  doc.slots.length * 48 +
  doc.cuts.length * 24 +
  (doc.likedIds.length + doc.optionIds.length) * 40 +
  key.length * 2 +
  96;

function isTrue(slot: Slot, me: string, marks: CallerMarks): boolean {
  switch (slot.kind) {
    case OWNER:
      return slot.ref === me;
    case LIKED:
      return marks.liked.has(slot.ref as string);
    case SAVED:
      return marks.saved.has(slot.ref as string);
    case PINNED:
      return marks.pinned.has(slot.ref as string);
    case FOLLOWED:
      return marks.followed.has(slot.ref as string);
    default:
      return marks.voted.has(slot.ref as number);
  }
}

/**
 * Appends `doc` as `me` sees it to `parts`: slices of its bytes, its fragments where they were cut
 * out, and `true` for each true slot (null `me` or `marks`: every slot false, as shared).
 */
export function pushOverlaid(parts: Buffer[], doc: SharedDoc, me: string | null, marks: CallerMarks | null): void {
  const { bytes, cuts, fragments } = doc;
  let from = 0;
  let c = 0;
  const upTo = (to: number) => {
    for (; c < cuts.length && cuts[c]! <= to; c++) {
      if (cuts[c]! > from) parts.push(bytes.subarray(from, cuts[c]));
      parts.push(fragments[c]!);
      from = cuts[c]!;
    }
    if (to > from) parts.push(from === 0 && to === bytes.length ? bytes : bytes.subarray(from, to));
  };
  if (me !== null && marks !== null) {
    for (const slot of doc.slots) {
      if (!isTrue(slot, me, marks)) continue;
      upTo(slot.at);
      parts.push(TRUE);
      from = slot.at + FALSE;
    }
  }
  upTo(bytes.length);
}

/** The document's bytes as shared (every slot false), in one buffer. */
export function sharedBytes(doc: SharedDoc): Buffer {
  if (doc.cuts.length === 0) return doc.bytes;
  const parts: Buffer[] = [];
  pushOverlaid(parts, doc, null, null);
  return Buffer.concat(parts);
}

/**
 * Built documents: each with what it was made of; whether it is made of the store's rows alone
 * (`renewable`: see `SocialReadCache.keep`); and, for one made of rows read before the build
 * started (a feed's listing's), the generation they were read at (`since`).
 */
export type Built<T> = Map<
  string,
  { value: T; size: number; deps: readonly DependencyKey[]; renewable?: boolean; since?: number }
>;

/**
 * Shared parts (documents, listings) in the read cache, each computed once however many callers
 * ask for it at the same time: a caller joins a computation still running only when nothing
 * changed since it started, so no caller is answered from before a change it could have seen.
 */
export class SharedParts {
  private readonly running = new Map<string, { since: number; done: Promise<unknown> }>();

  constructor(readonly cache: SocialReadCache) {}

  peek<T>(key: string): T | undefined {
    return this.cache.peekValue<T>(key);
  }

  /** The parts under `keys` (undefined: not buildable), building the missing ones together. */
  async get<T>(keys: readonly string[], build: (missing: string[]) => Promise<Built<T>>): Promise<(T | undefined)[]> {
    const out: (T | undefined | Promise<T | undefined>)[] = [];
    const missing: string[] = [];
    const since = this.cache.current;
    let waiting = false;
    for (const key of keys) {
      const hit = this.cache.peekValue<T>(key);
      if (hit !== undefined) {
        out.push(hit);
        continue;
      }
      const running = this.running.get(key);
      if (running && running.since === since) {
        out.push(running.done as Promise<T | undefined>);
        waiting = true;
      } else {
        out.push(undefined);
        missing.push(key);
      }
    }
    if (missing.length > 0) {
      this.cache.missed();
      const started = this.cache.startBuild();
      const batch = build(missing).then((built) => {
        for (const [key, b] of built) {
          this.cache.keep(key, b.value, b.size, b.deps, b.since ?? started, b.renewable);
        }
        return built;
      });
      for (const key of missing) {
        const done = batch.then((built) => built.get(key)?.value);
        // A failed build fails its own request (below); others asking later build again.
        done.catch(() => {});
        this.running.set(key, { since: started, done });
        done
          .finally(() => {
            if (this.running.get(key)?.done === done) this.running.delete(key);
          })
          .catch(() => {});
      }
      const built = await batch;
      for (const [i, key] of keys.entries()) if (missing.includes(key)) out[i] = built.get(key)?.value;
    }
    // All kept (a feed page's twenty documents, read after read): no promise per part (0199).
    return waiting ? Promise.all(out) : (out as (T | undefined)[]);
  }
}
