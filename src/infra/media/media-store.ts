import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, mkdirSync } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

export interface StoredObject {
  size: number;
  /** SHA-256 of the bytes, hex: the media's strong ETag. */
  sha256: string;
}

/**
 * Where uploaded media bytes live (docs/decisions/0122). Keys are the server's (the upload's id),
 * never a client's name. `put` is all or nothing: an object is visible only once it is complete,
 * and a failed or aborted stream leaves nothing behind.
 */
export interface MediaStore {
  put(key: string, body: Readable): Promise<StoredObject>;
  /** The bytes of `key`, or undefined when there is no such object. */
  get(key: string): Promise<Readable | undefined>;
  stat(key: string): Promise<{ size: number } | undefined>;
  /** Removes `key`; no error when it is already gone. */
  delete(key: string): Promise<void>;
}

const SAFE_KEY = /^[A-Za-z0-9_-]{1,100}$/;

export function checkedKey(key: string): string {
  if (!SAFE_KEY.test(key)) throw new Error(`Not a media key: ${JSON.stringify(key)}`);
  return key;
}

/**
 * The local disk (MEDIA_DIR, ./data/media by default): each object is written to a temporary name
 * in the same folder, flushed, then renamed into place, so a crash never leaves a partial file
 * under a served name (a stale `.tmp-*` file is all it can leave).
 */
export class DiskMediaStore implements MediaStore {
  private ready = false;

  constructor(readonly dir: string) {}

  /** Made on the first upload, synchronously: `put` attaches to its stream before any await. */
  private ensureDir(): void {
    if (!this.ready) mkdirSync(this.dir, { recursive: true });
    this.ready = true;
  }

  /** Attaches to `body` before its first await, so an error `body` raises early is never unhandled. */
  async put(key: string, body: Readable): Promise<StoredObject> {
    const final = join(this.dir, checkedKey(key));
    this.ensureDir();
    const temp = join(this.dir, `.tmp-${randomBytes(8).toString("hex")}-${key}`);
    const hash = createHash("sha256");
    let size = 0;
    const file = createWriteStream(temp, { flush: true });
    try {
      await pipeline(
        body,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            hash.update(chunk);
            size += chunk.length;
            yield chunk;
          }
        },
        file,
      );
      await rename(temp, final);
    } catch (error) {
      // The file is opened off the event loop: a pipeline that failed early may settle before the
      // open lands, and a removal made then would leave the file the open creates after it.
      if (!file.closed) await new Promise<void>((resolve) => file.once("close", () => resolve()));
      await rm(temp, { force: true });
      throw error;
    }
    return { size, sha256: hash.digest("hex") };
  }

  async get(key: string): Promise<Readable | undefined> {
    const path = join(this.dir, checkedKey(key));
    if (!(await this.stat(key))) return undefined;
    return createReadStream(path);
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    const found = await stat(join(this.dir, checkedKey(key))).catch(() => undefined);
    return found?.isFile() ? { size: found.size } : undefined;
  }

  async delete(key: string): Promise<void> {
    await rm(join(this.dir, checkedKey(key)), { force: true });
  }
}
