import { invalid } from "../../core/errors.js";
import type { Executor } from "../../infra/db/executor.js";
import type { Deps } from "../context.js";
import { extensionOfMime, ownMediaFile, parseMediaFile } from "./media.js";
import { mediaRepository } from "./media.repository.js";

interface ProblemSink {
  add(field: string, problem: string): void;
}

/**
 * The uploads a post's or comment's attachments name (docs/decisions/0122). A URL under this
 * server's media path must name an existing upload of `ownerId` (a problem on that field
 * otherwise); any other URL is an external link and passes. Returns the upload ids, to be marked
 * referenced in the write's transaction with `markMediaReferenced`.
 */
export async function checkMediaReferences(
  deps: Deps,
  p: ProblemSink,
  field: string,
  attachments: readonly { url: string; media?: { image?: { url?: string } } | object }[],
  ownerId: string,
): Promise<string[]> {
  const wanted: { at: string; id: string | undefined; url: string }[] = [];
  attachments.forEach((a, i) => {
    const image = (a.media as { image?: { url?: string } } | undefined)?.image?.url;
    for (const [at, url] of [
      [`${field}[${i}].url`, a.url],
      [`${field}[${i}].media.image.url`, image],
    ] as const) {
      if (typeof url !== "string") continue;
      const own = ownMediaFile(deps.config, url);
      if (own) wanted.push({ at, id: parseMediaFile(own.file)?.id, url });
    }
  });
  if (wanted.length === 0) return [];
  const ids = [...new Set(wanted.map((w) => w.id).filter((id): id is string => id !== undefined))];
  const rows = new Map((await mediaRepository(deps.db.kysely).findMany(ids)).map((r) => [r.id, r]));
  const found: string[] = [];
  for (const w of wanted) {
    const row = w.id ? rows.get(w.id) : undefined;
    const ext = w.url.slice(w.url.lastIndexOf(".") + 1);
    if (!row || extensionOfMime(row.mime) !== ext) {
      p.add(w.at, `must name an uploaded file (POST /api/v1/attachments); no upload is at ${JSON.stringify(w.url)}`);
    } else if (row.ownerId !== ownerId) {
      p.add(w.at, "must name a file you uploaded; this upload is another user's");
    } else if (!found.includes(row.id)) found.push(row.id);
  }
  return found;
}

/**
 * Marks uploads as referenced (by a post or comment written in `trx`): retention keeps them. An
 * upload the retention job deleted after `checkMediaReferences` saw it fails the write (422), so
 * no post names a file that is gone: the mark locks the row (PostgreSQL) or runs in the one writer
 * (SQLite), and the purge deletes only rows still unreferenced.
 */
export async function markMediaReferenced(trx: Executor, ids: readonly string[], now: string): Promise<void> {
  const kept = await mediaRepository(trx).markReferenced(ids, now);
  if (kept < ids.length) {
    throw invalid("attachments", "must name uploaded files; an upload it names was deleted (unused for a day)");
  }
}
