import multipart from "@fastify/multipart";
import { Type } from "typebox";
import { MAX_UPLOAD_BYTES } from "../../config/media.js";
import { AppError } from "../../core/errors.js";
import { api } from "../../http/access.js";
import type { App } from "../../http/app-type.js";
import { type Deps, withActor } from "../context.js";
import { ClientRequestIdQuery, UploadBody, UploadedAttachment } from "./media.schemas.js";
import { matchesEtag, readMedia } from "./read-media.js";
import { MEDIA_WRITE_SCOPES, uploadAttachment } from "./upload-attachment.js";

const notFound = (requestId: string) => ({ errorCode: "NotFound", errorMessage: "No such media", requestId });

/**
 * Media uploads (docs/decisions/0122). The multipart parser is registered in a context of its own
 * that holds only the upload route, so every other route keeps refusing multipart bodies.
 */
export async function registerMediaRoutes(app: App, deps: Deps): Promise<void> {
  await app.register(async (scope: App) => {
    await scope.register(multipart, {
      limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10, fieldSize: 1024, parts: 12, headerPairs: 50 },
    });
    scope.route({
      method: "POST",
      url: "/api/v1/attachments",
      ...api(
        { scopes: MEDIA_WRITE_SCOPES, requestIdRequired: true },
        {
          operationId: "uploadAMediaAttachment",
          tags: ["Attachments"],
          summary: "Upload a media attachment",
          description:
            "Two-step media upload: upload a JPEG or PNG here as the multipart field `file` (at most 8 MB, " +
            "8,388,608 bytes; larger is 413), then pass the returned `url` in a post's or comment's attachments. " +
            "The type is decided by the file's bytes, never by its name or declared type; anything else, a " +
            "truncated image or data after the image's end is 422. EXIF (GPS location included), XMP, comments " +
            "and text chunks are removed from what is stored and served. The file is served publicly at `url`; " +
            "only its uploader may attach it, and an upload no post or comment references is deleted after a day.",
          consumes: ["multipart/form-data"],
          querystring: ClientRequestIdQuery,
          body: UploadBody,
          response: { 200: UploadedAttachment },
        },
        deps.config.scopePrefix,
      ),
      preValidation: async (request) => {
        if (!request.isMultipart()) {
          throw new AppError("UnsupportedMediaType", "Send the file as multipart/form-data");
        }
        // The stream is read by the handler: the schema's body is for the OpenAPI document.
        request.body = { file: "" };
      },
      handler: async (request) => {
        const ctx = withActor(deps, request.actor);
        let part: Awaited<ReturnType<typeof request.file>>;
        try {
          part = await request.file();
        } catch (error) {
          if ((error as { statusCode?: number }).statusCode === 413) throw error;
          throw new AppError("BadRequest", "The multipart body is malformed", [
            { field: "file", problem: "must be sent in a well-formed multipart/form-data body" },
          ]);
        }
        if (part?.fieldname !== "file") {
          part?.file.resume();
          throw new AppError("BadRequest", "The multipart field `file` is required", [
            { field: "file", problem: "is required" },
          ]);
        }
        const file = part.file;
        return uploadAttachment(ctx, { file, tooLarge: () => file.truncated });
      },
    });
  });

  app.route({
    method: "GET",
    url: "/api/v1/media/:file",
    schema: {
      hide: true,
      params: Type.Object({ file: Type.String({ maxLength: 100 }) }),
    },
    handler: async (request, reply) => {
      const found = await readMedia(deps, request.params.file);
      if (!found) return reply.status(404).send(notFound(request.id));
      reply
        .header("etag", found.etag)
        .header("cache-control", "public, max-age=31536000, immutable")
        .header("x-content-type-options", "nosniff");
      if (matchesEtag(request.headers["if-none-match"], found.etag)) return reply.status(304).send();
      const stream = await found.open();
      if (!stream) return reply.status(404).send(notFound(request.id));
      return reply.header("content-type", found.row.mime).header("content-length", found.row.size).send(stream);
    },
  });
}
