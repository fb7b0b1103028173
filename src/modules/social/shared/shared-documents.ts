import type { CallerMarks } from "./caller-marks.repository.js";
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
  bytes: Buffer;
  slots: Slot[];
  /** Posts and comments whose likes, and poll options whose votes, the caller's part needs. */
  likedIds: string[];
  optionIds: number[];
}

const SLOT = /"(isOwner|isSubscribed|isLiking|isSaved|isPinned|isFollowing|isUserVoted)":(false|true)/g;
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

/**
 * The shared document of a serialized discussion (`json`, every per-caller flag false), with
 * `owners` mapping its post and comment ids to their owners. Null when the text and the parsed
 * document do not agree slot for slot (then the discussion is answered per caller, as before).
 */
export function sharedDocOf(json: string, owners: ReadonlyMap<string, string>): SharedDoc | null {
  const expected: Expected[] = [];
  if (!expectedSlots(JSON.parse(json), owners, expected)) return null;
  const slots: Slot[] = [];
  let bytes = 0;
  let last = 0;
  for (const match of json.matchAll(SLOT)) {
    const want = expected[slots.length];
    if (!want || want.name !== match[1] || match[2] !== "false") return null;
    const valueAt = match.index + match[0].length - FALSE;
    bytes += Buffer.byteLength(json.slice(last, valueAt));
    last = valueAt;
    slots.push({ at: bytes, kind: want.kind, ref: want.ref });
  }
  if (slots.length !== expected.length) return null;
  const likedIds = slots.filter((s) => s.kind === LIKED).map((s) => s.ref as string);
  const optionIds = slots.filter((s) => s.kind === VOTED).map((s) => s.ref as number);
  return { bytes: Buffer.from(json), slots, likedIds, optionIds };
}

/** Bytes a document is charged in the cache: its text and its slots. */
export const docSize = (doc: SharedDoc, key: string): number =>
  doc.bytes.length + doc.slots.length * 48 + (doc.likedIds.length + doc.optionIds.length) * 40 + key.length * 2 + 96;

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

/** Appends `doc` as `me` sees it to `parts` (slices of the shared bytes around the true slots). */
export function pushOverlaid(parts: Buffer[], doc: SharedDoc, me: string | null, marks: CallerMarks | null): void {
  let from = 0;
  if (me !== null && marks !== null) {
    for (const slot of doc.slots) {
      if (!isTrue(slot, me, marks)) continue;
      parts.push(doc.bytes.subarray(from, slot.at), TRUE);
      from = slot.at + FALSE;
    }
  }
  parts.push(from === 0 ? doc.bytes : doc.bytes.subarray(from));
}

/** Built documents: each with what it was made of. */
export type Built<T> = Map<string, { value: T; size: number; deps: readonly DependencyKey[] }>;

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
    for (const key of keys) {
      const hit = this.cache.peekValue<T>(key);
      const running = this.running.get(key);
      if (hit !== undefined) out.push(hit);
      else if (running && running.since === since) out.push(running.done as Promise<T | undefined>);
      else {
        out.push(undefined);
        missing.push(key);
      }
    }
    if (missing.length > 0) {
      this.cache.missed();
      const batch = build(missing).then((built) => {
        for (const [key, b] of built) this.cache.keep(key, b.value, b.size, b.deps, since);
        return built;
      });
      for (const key of missing) {
        const done = batch.then((built) => built.get(key)?.value);
        // A failed build fails its own request (below); others asking later build again.
        done.catch(() => {});
        this.running.set(key, { since, done });
        done
          .finally(() => {
            if (this.running.get(key)?.done === done) this.running.delete(key);
          })
          .catch(() => {});
      }
      const built = await batch;
      for (const [i, key] of keys.entries()) if (missing.includes(key)) out[i] = built.get(key)?.value;
    }
    return Promise.all(out);
  }
}
