import type { Config } from "../../config.js";
import type { MediaStore } from "../../infra/media/media-store.js";
import { issuerFor } from "../oauth/issuer.js";
import type { MediaRow } from "./media.repository.js";

declare module "../context.js" {
  interface Deps {
    /** Where uploaded media bytes live (local disk, MEDIA_DIR; docs/decisions/0122). */
    readonly media: MediaStore;
  }
}

/** The path under which uploads are served: `/api/v1/media/<id>.<jpg|png>`. */
export const MEDIA_PATH = "/api/v1/media/";

/** Where clients reach this server: PUBLIC_URL, else http://HOST:PORT (as the token issuer). */
export const mediaBase = (config: Config) => `${issuerFor(config)}${MEDIA_PATH}`;

const MEDIA_FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(jpg|png)$/;

export const extensionOfMime = (mime: string) => (mime === "image/png" ? "png" : "jpg");

/** The served URL of an upload. */
export const mediaUrl = (config: Config, row: Pick<MediaRow, "id" | "mime">) =>
  `${mediaBase(config)}${row.id}.${extensionOfMime(row.mime)}`;

/** An upload's id and extension from a served file name (`<id>.jpg`), or undefined. */
export function parseMediaFile(file: string): { id: string; ext: string } | undefined {
  const m = MEDIA_FILE.exec(file);
  return m ? { id: m[1]!, ext: m[2]! } : undefined;
}

/**
 * Whether `url` points at this server's media, and at which file: undefined for any other URL
 * (external links keep working); `{ file }` (maybe not a valid name) for one under our media path.
 */
export function ownMediaFile(config: Config, url: string): { file: string } | undefined {
  const base = mediaBase(config);
  if (!url.startsWith(base)) return undefined;
  return { file: url.slice(base.length) };
}
