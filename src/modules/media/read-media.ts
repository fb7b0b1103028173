import type { Readable } from "node:stream";
import type { Deps } from "../context.js";
import { extensionOfMime, parseMediaFile } from "./media.js";
import { type MediaRow, mediaRepository } from "./media.repository.js";

/**
 * A served upload by its file name (`<id>.jpg`, `<id>.png`): public, as the posts that show it
 * are readable by others. Undefined for a name that is not an upload's (wrong extension included).
 */
export async function readMedia(
  deps: Deps,
  file: string,
): Promise<{ row: MediaRow; etag: string; open: () => Promise<Readable | undefined> } | undefined> {
  const name = parseMediaFile(file);
  if (!name) return undefined;
  const row = await mediaRepository(deps.db.kysely).find(name.id);
  if (!row || extensionOfMime(row.mime) !== name.ext) return undefined;
  return { row, etag: `"${row.sha256}"`, open: () => deps.media.get(row.storageKey) };
}

/** Whether an If-None-Match header names `etag` (a list, `*`, or weak forms compared weakly). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}
