import type { Static } from "typebox";
import type { Config } from "../../config.js";
import { mediaUrl } from "./media.js";
import type { MediaRow } from "./media.repository.js";
import type { UploadedAttachment } from "./media.schemas.js";

/** An upload as upstream's Attachment: an Image whose url and media.image.url are the served file. */
export function attachmentView(config: Config, row: MediaRow): Static<typeof UploadedAttachment> {
  const url = mediaUrl(config, row);
  return {
    url,
    title: "",
    host: new URL(url).host,
    description: "",
    mediaType: "Image",
    media: { image: { width: row.width, height: row.height, url } },
  };
}
