import { createHash, createHmac, randomBytes } from "node:crypto";
import { once } from "node:events";
import { createReadStream, createWriteStream, mkdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { checkedKey, type MediaStore, type StoredObject } from "./media-store.js";

/** Where an S3-compatible bucket is and the key that signs for it (MEDIA_S3_*). */
export interface S3Location {
  /** `http(s)://host[:port]`: AWS's regional endpoint, MinIO, Ceph, R2, s3rver… */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Keys are written under this prefix (no leading slash; may be empty). */
  prefix: string;
}

const hex = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

/** RFC 3986 unreserved characters stay; everything else is %XX, as SigV4 wants (slashes kept in paths). */
const encodePath = (path: string) =>
  path
    .split("/")
    .map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join("/");

/** What Signature Version 4 covers of a request: no query string here. */
export interface SignedRequest {
  method: string;
  /** Already URI-encoded, as sent. */
  path: string;
  /** Lower-case names; every one is signed. `x-amz-date` and `authorization` are added. */
  headers: Record<string, string>;
  /** Hex SHA-256 of the body (what `x-amz-content-sha256` carries). */
  payloadHash: string;
}

/**
 * Signs `request` in place with AWS Signature Version 4 for service `s3` (the `Authorization` and
 * `x-amz-date` headers), as AWS's "Signature Calculations for the Authorization Header" describes.
 */
export function signV4(
  request: SignedRequest,
  key: { region: string; accessKeyId: string; secretAccessKey: string },
  at: Date,
): void {
  const amzDate = at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
  const day = amzDate.slice(0, 8);
  const headers = request.headers;
  headers["x-amz-date"] = amzDate;
  const signed = Object.keys(headers).sort();
  const canonical = [
    request.method,
    request.path,
    "",
    signed.map((h) => `${h}:${String(headers[h]).trim()}\n`).join(""),
    signed.join(";"),
    request.payloadHash,
  ].join("\n");
  const scope = `${day}/${key.region}/s3/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, hex(canonical)].join("\n");
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${key.secretAccessKey}`, day), key.region), "s3"), "aws4_request");
  const signature = createHmac("sha256", signingKey).update(toSign).digest("hex");
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${key.accessKeyId}/${scope}, SignedHeaders=${signed.join(";")}, Signature=${signature}`;
}

/**
 * An S3-compatible object store (decision 0119), chosen by MEDIA_S3_BUCKET:
 * path-style requests signed with AWS Signature Version 4 over node:http(s), four verbs (PUT,
 * GET, HEAD, DELETE). An upload is spooled to a temporary file first (hashing it on the way),
 * then sent with its length and SHA-256 in the signature: the process holds one stream buffer per
 * upload whatever the file's size, and the store sees a single PUT, which S3 makes visible only
 * once complete (all or nothing, as `MediaStore.put` promises).
 */
export class S3MediaStore implements MediaStore {
  private readonly base: URL;

  constructor(
    private readonly at: S3Location,
    private readonly spoolDir = join(tmpdir(), "sta-media-spool"),
  ) {
    this.base = new URL(at.endpoint);
    if (this.base.protocol !== "http:" && this.base.protocol !== "https:") {
      throw new Error(`MEDIA_S3_ENDPOINT must be an http:// or https:// URL (got "${at.endpoint}")`);
    }
  }

  private path(key: string): string {
    const prefix = this.at.prefix === "" ? "" : `${this.at.prefix.replace(/\/+$/, "")}/`;
    return `${this.base.pathname.replace(/\/+$/, "")}/${this.at.bucket}/${prefix}${checkedKey(key)}`;
  }

  /** Sends one signed request; the body, when there is one, is a file of known length. */
  private send(
    method: "PUT" | "GET" | "HEAD" | "DELETE",
    key: string,
    body?: { file: string; size: number; sha256: string },
  ): Promise<IncomingMessage> {
    const payloadHash = body ? body.sha256 : hex("");
    const path = encodePath(this.path(key));
    const headers: Record<string, string> = { host: this.base.host, "x-amz-content-sha256": payloadHash };
    if (body) headers["content-length"] = String(body.size);
    // S3 refuses a signature more than 15 minutes off its own clock: this is the real time, never a
    // sandbox clock.
    signV4({ method, path, headers, payloadHash }, this.at, new Date());
    const request = this.base.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = request(
        { method, host: this.base.hostname, port: this.base.port || undefined, path, headers },
        resolve,
      );
      req.on("error", reject);
      if (body) pipeline(createReadStream(body.file), req).catch(reject);
      else req.end();
    });
  }

  private async failure(response: IncomingMessage, what: string): Promise<Error> {
    const chunks: Buffer[] = [];
    for await (const chunk of response) if (chunks.length < 16) chunks.push(chunk as Buffer);
    const code = /<Code>([^<]{1,100})<\/Code>/.exec(Buffer.concat(chunks).toString("utf8"))?.[1];
    return new Error(`S3 ${what} answered ${response.statusCode}${code ? ` ${code}` : ""}`);
  }

  /** Attaches to `body` before its first await, so an error `body` raises early is never unhandled. */
  async put(key: string, body: Readable): Promise<StoredObject> {
    const file = join(this.spoolDir, `${randomBytes(8).toString("hex")}-${checkedKey(key)}`);
    const hash = createHash("sha256");
    let size = 0;
    const counted = async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        hash.update(chunk);
        size += chunk.length;
        yield chunk;
      }
    };
    mkdirSync(this.spoolDir, { recursive: true });
    const spool = createWriteStream(file);
    try {
      await pipeline(body, counted, spool);
      const sha256 = hash.digest("hex");
      const response = await this.send("PUT", key, { file, size, sha256 });
      if (response.statusCode !== 200) throw await this.failure(response, `PUT ${key}`);
      response.resume();
      return { size, sha256 };
    } finally {
      // A body that fails at once can fail before the spool file is even open: it is made (and
      // closed) after, so it is removed only once closed, or it was left behind.
      if (!spool.closed) await once(spool, "close").catch(() => {});
      await rm(file, { force: true });
    }
  }

  async get(key: string): Promise<Readable | undefined> {
    const response = await this.send("GET", key);
    if (response.statusCode === 404) {
      response.resume();
      return undefined;
    }
    if (response.statusCode !== 200) throw await this.failure(response, `GET ${key}`);
    return response;
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    const response = await this.send("HEAD", key);
    response.resume();
    if (response.statusCode === 404) return undefined;
    if (response.statusCode !== 200) throw new Error(`S3 HEAD ${key} answered ${response.statusCode}`);
    return { size: Number(response.headers["content-length"] ?? 0) };
  }

  async delete(key: string): Promise<void> {
    const response = await this.send("DELETE", key);
    if (response.statusCode !== 204 && response.statusCode !== 200 && response.statusCode !== 404) {
      throw await this.failure(response, `DELETE ${key}`);
    }
    response.resume();
  }
}
