/** Uploaded media (docs/decisions/0122): MEDIA_DIR. */

import type { Pick } from "./shared.js";

export interface MediaSettings {
  /** MEDIA_DIR: the folder of the local disk store (made when missing). */
  dir: string;
}

export const DEFAULT_MEDIA_DIR = "./data/media";
/** Upstream's limit on one upload: 8 MB (8,388,608 bytes). */
export const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;

export function parseMediaSettings(pick: Pick, problems: string[]): MediaSettings {
  const dir = pick(undefined, "MEDIA_DIR") ?? DEFAULT_MEDIA_DIR;
  if (dir.trim() === "" || dir.includes("\0")) problems.push(`MEDIA_DIR must be a folder path (got "${dir}")`);
  return { dir };
}
