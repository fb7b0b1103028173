/** Uploaded media (docs/decisions/0122, 0119): MEDIA_DIR, or an S3-compatible bucket (MEDIA_S3_*). */

import type { Pick } from "./shared.js";

export interface S3Settings {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  prefix: string;
}

export interface MediaSettings {
  /** MEDIA_DIR: the folder of the local disk store (made when missing). */
  dir: string;
  /** MEDIA_S3_BUCKET and the rest: the bytes live in this bucket instead of MEDIA_DIR. */
  s3: S3Settings | undefined;
}

export const DEFAULT_MEDIA_DIR = "./data/media";
/** Upstream's limit on one upload: 8 MB (8,388,608 bytes). */
export const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;

function parseS3(pick: Pick, problems: string[]): S3Settings | undefined {
  const bucket = pick(undefined, "MEDIA_S3_BUCKET");
  if (bucket === undefined || bucket === "") return undefined;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    problems.push(
      `MEDIA_S3_BUCKET must be an S3 bucket name: 3 to 63 lower-case letters, digits, dots and hyphens (got "${bucket}")`,
    );
  }
  const endpoint = pick(undefined, "MEDIA_S3_ENDPOINT") ?? "";
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    problems.push(
      `MEDIA_S3_ENDPOINT must be the http:// or https:// URL of the object store when MEDIA_S3_BUCKET is set (got "${endpoint}")`,
    );
  }
  const accessKeyId = pick(undefined, "MEDIA_S3_ACCESS_KEY_ID") ?? pick(undefined, "AWS_ACCESS_KEY_ID") ?? "";
  const secretAccessKey =
    pick(undefined, "MEDIA_S3_SECRET_ACCESS_KEY") ?? pick(undefined, "AWS_SECRET_ACCESS_KEY") ?? "";
  if (accessKeyId === "" || secretAccessKey === "") {
    problems.push(
      "MEDIA_S3_BUCKET needs MEDIA_S3_ACCESS_KEY_ID and MEDIA_S3_SECRET_ACCESS_KEY (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)",
    );
  }
  const prefix = (pick(undefined, "MEDIA_S3_PREFIX") ?? "").replace(/^\/+|\/+$/g, "");
  return {
    endpoint,
    bucket,
    region: pick(undefined, "MEDIA_S3_REGION") ?? pick(undefined, "AWS_REGION") ?? "us-east-1",
    accessKeyId,
    secretAccessKey,
    prefix,
  };
}

export function parseMediaSettings(pick: Pick, problems: string[]): MediaSettings {
  const dir = pick(undefined, "MEDIA_DIR") ?? DEFAULT_MEDIA_DIR;
  if (dir.trim() === "" || dir.includes("\0")) problems.push(`MEDIA_DIR must be a folder path (got "${dir}")`);
  return { dir, s3: parseS3(pick, problems) };
}
