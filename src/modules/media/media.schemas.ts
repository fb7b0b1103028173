import { Type } from "typebox";

/** Upstream's Attachment, as POST /api/v1/attachments returns it. */
export const UploadedAttachment = Type.Object(
  {
    url: Type.String({ description: "Full URL of the attachment (served by this server)" }),
    title: Type.String(),
    host: Type.String({ description: "Host of the attachment's URL" }),
    description: Type.String(),
    mediaType: Type.Union([Type.Literal("None"), Type.Literal("Link"), Type.Literal("Image"), Type.Literal("Video")]),
    media: Type.Object({
      image: Type.Object({
        width: Type.Integer({ description: "Width in pixels, read from the image" }),
        height: Type.Integer({ description: "Height in pixels, read from the image" }),
        url: Type.String(),
      }),
    }),
  },
  { description: "Media or link attachment" },
);

/** The multipart body, for the OpenAPI document (the route reads the stream itself). */
export const UploadBody = Type.Object({
  file: Type.String({
    format: "binary",
    description: "The image: JPEG or PNG (decided by its bytes), at most 8 MB (8,388,608 bytes)",
  }),
});

export const ClientRequestIdQuery = Type.Object({
  client_request_id: Type.Optional(Type.String({ description: "Client-generated correlation id" })),
});
