import type { Static } from "typebox";
import { type Problem, validationFailed } from "../../../core/errors.js";
import { newId } from "../../../core/ids.js";
import type { Deps } from "../../context.js";
import { resolveUserRefs, type UserRecord } from "../../identity/user-profiles.js";
import { findInstruments } from "../../market/find-instruments.js";
import type { AttachmentIn, CommentBody, CreateDiscussionBody, UpdatePostBody } from "./social.schemas.js";
import type { AttachmentView } from "./social.view.js";

/** What clients send as an attachment (request form); every field but url is optional. */
export type AttachmentInput = Static<typeof AttachmentIn>;

/**
 * Collects every problem of a request, so that one 422 names them all. Fields are domain paths
 * (`attachments[0].url`); the HTTP layer names them on the wire.
 */
export class Problems {
  readonly list: Problem[] = [];
  add(field: string, problem: string): void {
    this.list.push({ field, problem });
  }
  throwIfAny(): void {
    if (this.list.length > 0) throw validationFailed(this.list);
  }
}

/**
 * Text of a post or comment: present, not blank, at most `max` characters (code points). The
 * schemas cannot say "not only spaces", and the length differs by use case (posts, comments).
 */
export function checkText(
  p: Problems,
  field: string,
  text: string | undefined,
  max: number,
  allowEmpty = false,
): string {
  const value = text ?? "";
  if (!allowEmpty && value.trim() === "") p.add(field, "must not be empty or only spaces");
  const length = [...value].length;
  if (length > max) p.add(field, `must be at most ${max} characters long; got ${length}`);
  return value;
}

function httpUrl(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

/**
 * Validates and normalises attachments into the stored request form. The schema bounds lengths
 * and `mediaType`; what it cannot say is checked here: http(s) URLs, and an Image's image.
 */
export function checkAttachments(
  p: Problems,
  field: string,
  input: readonly AttachmentInput[] | undefined,
): AttachmentView[] {
  return (input ?? []).map((a, i) => {
    const at = `${field}[${i}]`;
    const url = httpUrl(a.url ?? "");
    if (!url) p.add(`${at}.url`, "must be an absolute http(s) URL");
    const mediaType = a.mediaType ?? "None";
    const image = a.media?.image;
    if (image && !httpUrl(image.url ?? "")) p.add(`${at}.media.image.url`, "must be an absolute http(s) URL");
    if (mediaType === "Image" && !image) p.add(`${at}.media.image`, `is required when {${at}.mediaType} is Image`);
    return {
      url: a.url,
      title: a.title ?? "",
      host: a.host || url?.host || "",
      description: a.description ?? "",
      mediaType,
      media: image ? { image: { width: image.width, height: image.height, url: image.url } } : {},
    };
  });
}

/** A best-effort language code from the script of the text (no dictionary). */
export function languageOf(text: string): string {
  if (/[\u0590-\u05FF]/.test(text)) return "he";
  if (/[\u0600-\u06FF]/.test(text)) return "ar";
  if (/[\u0400-\u04FF]/.test(text)) return "ru";
  if (/[\u3040-\u30FF]/.test(text)) return "ja";
  if (/[\u4E00-\u9FFF]/.test(text)) return "zh";
  return "en";
}

/** The columns a new post or comment starts with: a fresh id, the text and its language, unedited and live. */
export function newEntry(ownerId: string, text: string, attachments: readonly AttachmentView[], now: string) {
  return {
    id: newId(),
    ownerId,
    text,
    languageCode: languageOf(text),
    attachments: JSON.stringify(attachments),
    createdAt: now,
    updatedAt: now,
    editStatus: "None",
    isDeleted: 0,
    isSpam: 0,
  };
}

/**
 * An edit of a post's or comment's text (and of its attachments when they are given): the columns
 * it changes, or a 422 naming each bad field.
 */
export function checkedEdit(
  input: Static<typeof UpdatePostBody> | Static<typeof CommentBody>,
  maxLength: number,
  now: string,
) {
  const p = new Problems();
  const text = checkText(p, "message", input.message, maxLength);
  const attachments =
    input.attachments === undefined ? undefined : checkAttachments(p, "attachments", input.attachments);
  p.throwIfAny();
  return {
    text,
    languageCode: languageOf(text),
    ...(attachments ? { attachments: JSON.stringify(attachments) } : {}),
    updatedAt: now,
    editStatus: "Edited",
  };
}

/** Tag ids are instrument ids (text); an unknown or malformed one is a 422 on its field. */
export async function resolveTags(
  deps: Deps,
  p: Problems,
  field: string,
  tags: readonly { id: string; name?: string | undefined }[] | undefined,
): Promise<number[]> {
  const list = tags ?? [];
  const ids = list.map((t) => (/^\d{1,9}$/.test(t.id.trim()) ? Number(t.id.trim()) : null));
  const found = await findInstruments(
    deps,
    ids.filter((id): id is number => id !== null),
  );
  const out: number[] = [];
  ids.forEach((id, i) => {
    if (id === null)
      p.add(`${field}[${i}].id`, `must be an instrument id (digits); got ${JSON.stringify(list[i]!.id)}`);
    else if (!found.has(id)) p.add(`${field}[${i}].id`, `must name an instrument; no instrument has id ${id}`);
    else if (!out.includes(id)) out.push(id);
  });
  return out;
}

export type MentionInput = NonNullable<Static<typeof CreateDiscussionBody>["mentions"]>["mentions"][number];

/** Mentions name a user by id (gcid or uuid) or, when no id is given, by userName. */
export async function resolveMentions(
  deps: Deps,
  p: Problems,
  field: string,
  mentions: readonly MentionInput[] | undefined,
): Promise<{ user: UserRecord; isDirect: boolean }[]> {
  const list = mentions ?? [];
  const refs = list.map((m) => (m.id?.trim() ? m.id.trim() : (m.userName?.trim() ?? "")));
  const found = await resolveUserRefs(
    deps,
    refs.filter((r) => r !== ""),
  );
  const out: { user: UserRecord; isDirect: boolean }[] = [];
  for (const [i, m] of list.entries()) {
    const ref = refs[i]!;
    const sub = m.id?.trim() ? "id" : "userName";
    const user = ref === "" ? undefined : found.get(ref);
    if (ref === "") p.add(`${field}[${i}]`, `needs an {${field}[${i}].id} or a {${field}[${i}].userName}`);
    else if (!user) p.add(`${field}[${i}].${sub}`, `must name a user; no user is ${JSON.stringify(ref)}`);
    else if (m.id?.trim() && m.userName?.trim() && m.userName.trim().toLowerCase() !== user.username.toLowerCase()) {
      p.add(
        `${field}[${i}].userName`,
        `must be the user name of the user with id ${JSON.stringify(ref)} (or be left out)`,
      );
    } else if (!out.some((o) => o.user.userId === user.userId)) out.push({ user, isDirect: m.isDirect ?? true });
  }
  return out;
}
