import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3MediaStore, signV4 } from "../../src/infra/media/s3-media-store.js";
import { runRetention } from "../../src/modules/maintenance/retention.js";
import { engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";
import { jpeg, multipart, png } from "./images.js";

/**
 * The S3 adapter against s3rver, a local implementation of S3's REST API (decision 0119: no real
 * S3-compatible server installs here). s3rver checks the access key and the Authorization header's
 * form but not a Signature Version 4's value, so the signing is checked against AWS's own published
 * example instead.
 */
let server: S3rver;
let endpoint: string;
let root: string;
const BUCKET = "sta-media";
const KEYS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "sta-s3-"));
  server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: join(root, "objects"),
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

const read = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

describe("Signature Version 4", () => {
  it("signs AWS's documented GET Object example to the documented signature", () => {
    // docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html, "Example: GET Object"
    const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    const headers: Record<string, string> = {
      host: "examplebucket.s3.amazonaws.com",
      range: "bytes=0-9",
      "x-amz-content-sha256": empty,
    };
    signV4(
      { method: "GET", path: "/test.txt", headers, payloadHash: empty },
      {
        region: "us-east-1",
        accessKeyId: "AKIAIOSFODNN7EXAMPLE",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      },
      new Date("2013-05-24T00:00:00Z"),
    );
    expect(headers["x-amz-date"]).toBe("20130524T000000Z");
    expect(headers.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, " +
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, " +
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
    );
  });
});

describe("the S3 media store", () => {
  const store = (prefix = "", accessKeyId = KEYS.accessKeyId) =>
    new S3MediaStore(
      { endpoint, bucket: BUCKET, region: "us-east-1", accessKeyId, secretAccessKey: KEYS.secretAccessKey, prefix },
      join(root, "spool"),
    );

  it("puts, stats, gets and deletes an object; the size and SHA-256 are the bytes'", async () => {
    const s = store("media");
    const put = await s.put("abc", Readable.from([Buffer.from("hello "), Buffer.from("world")]));
    expect(put).toEqual({ size: 11, sha256: "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9" });
    expect(await s.stat("abc")).toEqual({ size: 11 });
    expect((await read((await s.get("abc"))!)).toString()).toBe("hello world");
    // Under its prefix: another prefix does not see it.
    expect(await store("other").stat("abc")).toBeUndefined();
    await s.delete("abc");
    await s.delete("abc");
    expect(await s.stat("abc")).toBeUndefined();
    expect(await s.get("abc")).toBeUndefined();
    // Nothing stays in the spool.
    expect(readdirSync(join(root, "spool"))).toEqual([]);
  });

  it("sends an 8 MB object whole, in one signed PUT", async () => {
    const s = store();
    const big = Buffer.alloc(8 * 1024 * 1024, 7);
    big.write("end", big.length - 3);
    const chunks = Array.from({ length: 128 }, (_, i) => big.subarray(i * 65536, (i + 1) * 65536));
    expect((await s.put("big", Readable.from(chunks))).size).toBe(big.length);
    expect((await read((await s.get("big"))!)).equals(big)).toBe(true);
    await s.delete("big");
  });

  it("a stream that fails half way leaves nothing in the bucket or the spool", async () => {
    const s = store();
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(64 * 1024, 1));
        this.destroy(new Error("client went away"));
      },
    });
    await expect(s.put("half", failing)).rejects.toThrow("client went away");
    expect(await s.stat("half")).toBeUndefined();
    expect(readdirSync(join(root, "spool"))).toEqual([]);
  });

  it("reports a refused credential with the store's answer", async () => {
    const wrong = store("", "UNKNOWNKEY");
    await expect(wrong.put("x", Readable.from([Buffer.from("x")]))).rejects.toThrow(
      "S3 PUT x answered 403 InvalidAccessKeyId",
    );
    await expect(wrong.stat("x")).rejects.toThrow("S3 HEAD x answered 403");
  });

  it("refuses keys that are not its own", async () => {
    await expect(store().put("../escape", Readable.from([]))).rejects.toThrow(/Not a media key/);
  });
});

describe.each(engines())("uploads kept in an S3 bucket (MEDIA_S3_BUCKET) on %s", (engine) => {
  let h: Harness;
  let alice: TestUser;
  let now = Date.parse("2026-03-01T10:00:00.000Z");

  beforeAll(async () => {
    h = await startHarness(engine, {
      env: {
        MEDIA_S3_BUCKET: BUCKET,
        MEDIA_S3_ENDPOINT: endpoint,
        MEDIA_S3_ACCESS_KEY_ID: KEYS.accessKeyId,
        MEDIA_S3_SECRET_ACCESS_KEY: KEYS.secretAccessKey,
        MEDIA_S3_PREFIX: `test-${engine}`,
      },
      clock: { now: () => new Date(now) },
    });
    alice = await h.user(["feed:read", "feed:write"]);
  });
  afterAll(async () => {
    await h.close();
  });

  const upload = (file: Buffer) => {
    const body = multipart(file);
    return h.app.inject({
      method: "POST",
      url: `/api/v1/attachments?client_request_id=${rid()}`,
      headers: { ...alice.headers, "x-request-id": rid(), ...body.headers },
      payload: body.payload,
    });
  };

  it("uploads, serves and deletes through the bucket", async () => {
    const photo = jpeg({ width: 9, height: 4 });
    const res = await upload(photo);
    expect(res.statusCode, res.body).toBe(200);
    const a = res.json();
    expect(a.media.image).toMatchObject({ width: 9, height: 4 });
    const path = new URL(a.url).pathname;
    const id = path.split("/").pop()!.split(".")[0]!;
    const bucketStore = new S3MediaStore({
      endpoint,
      bucket: BUCKET,
      region: "us-east-1",
      ...KEYS,
      prefix: `test-${engine}`,
    });
    const stored = await bucketStore.stat(id);
    expect(stored).toBeDefined();

    const got = await h.app.inject({ method: "GET", url: path });
    expect(got.statusCode).toBe(200);
    expect(got.headers["content-type"]).toBe("image/jpeg");
    expect(Number(got.headers["content-length"])).toBe(stored!.size);
    expect(got.rawPayload.length).toBe(stored!.size);

    const other = await upload(png({ width: 3, height: 3 }));
    expect(other.statusCode).toBe(200);
    // A day later, unreferenced uploads are purged from the bucket too.
    now += 25 * 3600 * 1000;
    await runRetention(h.deps);
    expect(await bucketStore.stat(id)).toBeUndefined();
    expect((await h.app.inject({ method: "GET", url: path })).statusCode).toBe(404);
  });
});
