import type { Static } from "typebox";
import { AppError, type ErrorDetail } from "../../../core/errors.js";
import { newId } from "../../../core/ids.js";
import type { Deps } from "../../context.js";
import { resolveUserRefs, type UserRecord } from "../../identity/user-profiles.js";
import { findInstruments } from "../../market/find-instruments.js";
import type { AttachmentIn, CommentBody, CreateDiscussionBody, UpdatePostBody } from "./social.schemas.js";
import type { AttachmentView } from "./social.view.js";

/** What clients send as an attachment (request form); every field but url is optional. */
export type AttachmentInput = Static<typeof AttachmentIn>;

export const MEDIA_TYPES = ["None", "Link", "Image"] as const;

/** Collects every problem of a request, so that one 422 names them all. */
export class Problems {
  readonly list: ErrorDetail[] = [];
  add(field: string, message: string): void {
    this.list.push({ field, message });
  }
  throwIfAny(): void {
    if (this.list.length > 0)
      throw new AppError("ValidationFailed", this.list.map((p) => `${p.field} ${p.message}`).join("; "), this.list);
  }
}

/** Text of a post or comment: present, not blank, at most `max` characters (code points). */
export function checkText(
  p: Problems,
  field: string,
  text: string | undefined,
  max: number,
  allowEmpty = false,
): string {
  const value = text ?? "";
  if (!allowEmpty && value.trim() === "") p.add(field, "must not be empty");
  if ([...value].length > max) p.add(field, `must be at most ${max} characters`);
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

/** Validates and normalises attachments into the stored request form. */
export function checkAttachments(
  p: Problems,
  field: string,
  input: readonly AttachmentInput[] | undefined,
): AttachmentView[] {
  return (input ?? []).map((a, i) => {
    const at = `${field}/${i}`;
    const url = httpUrl(a.url ?? "");
    if (!url) p.add(`${at}/url`, "must be an absolute http(s) URL");
    const mediaType = a.mediaType ?? "None";
    if (!(MEDIA_TYPES as readonly string[]).includes(mediaType))
      p.add(`${at}/mediaType`, `must be one of ${MEDIA_TYPES.join(", ")}`);
    const image = a.media?.image;
    if (image && !httpUrl(image.url ?? "")) p.add(`${at}/media/image/url`, "must be an absolute http(s) URL");
    if (mediaType === "Image" && !image) p.add(`${at}/media/image`, "is required when mediaType is Image");
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
  const text = checkText(p, "body/message", input.message, maxLength);
  const attachments =
    input.attachments === undefined ? undefined : checkAttachments(p, "body/attachments", input.attachments);
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
    if (id === null) p.add(`${field}/${i}/id`, "must be an instrument id");
    else if (!found.has(id)) p.add(`${field}/${i}/id`, `no instrument ${id}`);
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
    if (ref === "") p.add(`${field}/${i}`, "needs an id or a userName");
    else if (!user) p.add(`${field}/${i}/${sub}`, `no user "${ref}"`);
    else if (m.id?.trim() && m.userName?.trim() && m.userName.trim().toLowerCase() !== user.username.toLowerCase()) {
      p.add(`${field}/${i}/userName`, `does not match the user with id "${ref}"`);
    } else if (!out.some((o) => o.user.userId === user.userId)) out.push({ user, isDirect: m.isDirect ?? true });
  }
  return out;
}
