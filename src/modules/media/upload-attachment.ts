import { type Readable, Transform } from "node:stream";
import type { Static } from "typebox";
import { requireUser } from "../../core/access.js";
import { isoNow } from "../../core/clock.js";
import { AppError, invalid } from "../../core/errors.js";
import { newId } from "../../core/ids.js";
import type { Ctx } from "../context.js";
import { attachmentView } from "./attachment.view.js";
import { type ImageInfo, ImageRejected, ImageSanitizer } from "./image-sanitizer.js";
import { mediaRepository } from "./media.repository.js";
import type { UploadedAttachment } from "./media.schemas.js";

export const MEDIA_WRITE_SCOPES = ["feed:write"] as const;

export interface UploadInput {
  /** The file's bytes as they arrive. */
  file: Readable;
  /** True once the transport cut the file at the size limit. */
  tooLarge: () => boolean;
}

class TooLarge extends Error {}

const payloadTooLarge = () =>
  new AppError("PayloadTooLarge", "The file is larger than 8 MB (8,388,608 bytes)", [
    { field: "file", problem: "must be at most 8,388,608 bytes" },
  ]);

/**
 * Stores an uploaded image (docs/decisions/0122): its bytes are checked and stripped of metadata
 * as they stream to the media store; the row is written once the file is complete. A refused
 * file leaves nothing behind.
 */
export async function uploadAttachment(ctx: Ctx, input: UploadInput): Promise<Static<typeof UploadedAttachment>> {
  const actor = requireUser(ctx.actor, MEDIA_WRITE_SCOPES);
  const id = newId();
  const sanitizer = new ImageSanitizer();
  let info: ImageInfo | undefined;
  const strip = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        for (const part of sanitizer.push(chunk)) this.push(part);
        done();
      } catch (error) {
        done(error as Error);
      }
    },
    flush(done) {
      if (input.tooLarge()) return done(new TooLarge());
      try {
        info = sanitizer.end();
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  });
  input.file.on("limit", () => strip.destroy(new TooLarge()));
  input.file.on("error", (error) => strip.destroy(error));
  // The store's pipeline reports the error; this keeps one raised before it attaches from being uncaught.
  strip.on("error", () => {});
  let stored: { size: number; sha256: string };
  try {
    stored = await ctx.media.put(id, input.file.pipe(strip));
  } catch (error) {
    input.file.resume();
    if (error instanceof TooLarge || input.tooLarge()) throw payloadTooLarge();
    if (error instanceof ImageRejected) throw invalid("file", `must be a JPEG or PNG image; the file ${error.reason}`);
    throw error;
  }
  if (!info) throw new Error("upload: the image ended without its info");
  const row = {
    id,
    ownerId: actor.userId,
    storageKey: id,
    mime: info.mime,
    size: stored.size,
    width: info.width,
    height: info.height,
    sha256: stored.sha256,
    createdAt: isoNow(ctx.clock),
    referencedAt: null,
  };
  try {
    await mediaRepository(ctx.db.kysely).insert(row);
  } catch (error) {
    await ctx.media.delete(id);
    throw error;
  }
  return attachmentView(ctx.config, row);
}
