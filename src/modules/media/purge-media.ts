import type { Ctx } from "../context.js";
import { mediaRepository } from "./media.repository.js";

/** How long an upload may stay unreferenced by any post or comment before it is deleted. */
export const UNREFERENCED_MEDIA_TTL_MS = 24 * 60 * 60_000;
const BATCH = 500;

/**
 * Deletes uploads no post or comment referenced within a day of their upload: the row first
 * (only while still unreferenced, so a post written meanwhile keeps its file), then the file.
 * Safe on several instances at once. Returns how many were deleted.
 */
export async function purgeUnreferencedMedia(ctx: Ctx): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - UNREFERENCED_MEDIA_TTL_MS).toISOString();
  const repo = mediaRepository(ctx.db.kysely);
  let deleted = 0;
  for (;;) {
    const batch = await repo.unreferencedBefore(cutoff, BATCH);
    for (const row of batch) {
      if (await repo.deleteUnreferenced(row.id)) {
        await ctx.media.delete(row.storageKey);
        deleted += 1;
      }
    }
    if (batch.length < BATCH) return deleted;
  }
}
