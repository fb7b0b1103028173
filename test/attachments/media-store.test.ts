import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { DiskMediaStore } from "../../src/infra/media/media-store.js";

describe("the disk media store", () => {
  const dirs: string[] = [];
  const store = () => {
    const dir = join(mkdtempSync(join(tmpdir(), "sta-store-")), "media");
    dirs.push(dir);
    return new DiskMediaStore(dir);
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(join(d, ".."), { recursive: true, force: true });
  });

  it("puts (making its folder), stats, gets and deletes an object; the size and SHA-256 are the bytes'", async () => {
    const s = store();
    const put = await s.put("abc", Readable.from([Buffer.from("hello "), Buffer.from("world")]));
    expect(put).toEqual({ size: 11, sha256: "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9" });
    expect(await s.stat("abc")).toEqual({ size: 11 });
    const chunks: Buffer[] = [];
    for await (const c of (await s.get("abc"))!) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe("hello world");
    await s.delete("abc");
    await s.delete("abc");
    expect(await s.stat("abc")).toBeUndefined();
    expect(await s.get("abc")).toBeUndefined();
  });

  it("a stream that fails half way leaves nothing: no object under its key, no temporary file", async () => {
    const s = store();
    await s.put("before", Readable.from([Buffer.from("x")]));
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(64 * 1024, 1));
        this.destroy(new Error("client went away"));
      },
    });
    await expect(s.put("half", failing)).rejects.toThrow("client went away");
    expect(await s.stat("half")).toBeUndefined();
    expect(readdirSync(s.dir)).toEqual(["before"]);
  });

  it("refuses keys that are not its own (no paths, no dots)", async () => {
    const s = store();
    await expect(s.put("../escape", Readable.from([]))).rejects.toThrow(/Not a media key/);
    await expect(s.stat("a/b")).rejects.toThrow(/Not a media key/);
  });
});
