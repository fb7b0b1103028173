import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transact } from "../../src/modules/context.js";
import { runRetention } from "../../src/modules/maintenance/retention.js";
import { checkMediaReferences, markMediaReferenced } from "../../src/modules/media/media-references.js";
import { engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";
import { GPS_TEXT, jpeg, multipart, PNG_SIGNATURE, png } from "./images.js";

const RW = ["feed:read", "feed:write"];
const LIMIT = 8 * 1024 * 1024;

describe.each(engines())("media uploads on %s", (engine) => {
  let h: Harness;
  let alice: TestUser;
  let bob: TestUser;
  let dir: string;
  let now = Date.parse("2026-03-01T10:00:00.000Z");

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sta-media-"));
    h = await startHarness(engine, { env: { MEDIA_DIR: dir }, clock: { now: () => new Date(now) } });
    alice = await h.user(RW);
    bob = await h.user(RW);
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const upload = (u: TestUser | null, file: Buffer, opts?: Parameters<typeof multipart>[1]) => {
    const body = multipart(file, opts);
    return h.app.inject({
      method: "POST",
      url: `/api/v1/attachments?client_request_id=${rid()}`,
      headers: { ...(u?.headers ?? {}), "x-request-id": rid(), ...body.headers },
      payload: body.payload,
    });
  };
  const path = (url: string) => new URL(url).pathname;
  const call = (u: TestUser, method: "GET" | "POST" | "PUT", url: string, payload?: object) =>
    h.app.inject({ method, url, headers: { ...u.headers, "x-request-id": rid() }, ...(payload ? { payload } : {}) });

  it("a PNG: upstream's Attachment with its size, served stripped of its text and EXIF chunks", async () => {
    const res = await upload(alice, png({ width: 7, height: 5, metadata: true }));
    expect(res.statusCode, res.body).toBe(200);
    const a = res.json();
    expect(a).toMatchObject({
      mediaType: "Image",
      title: "",
      description: "",
      media: { image: { width: 7, height: 5 } },
    });
    expect(a.url).toMatch(/^http:\/\/[^/]+\/api\/v1\/media\/[0-9a-f-]{36}\.png$/);
    expect(a.media.image.url).toBe(a.url);
    expect(a.host).toBe(new URL(a.url).host);

    const got = await h.app.inject({ method: "GET", url: path(a.url) });
    expect(got.statusCode).toBe(200);
    expect(got.headers["content-type"]).toBe("image/png");
    expect(got.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(got.headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
    const expected = png({ width: 7, height: 5 });
    expect(Number(got.headers["content-length"])).toBe(expected.length);
    expect(got.rawPayload.equals(expected)).toBe(true);
    expect(got.rawPayload.includes(GPS_TEXT)).toBe(false);
    // What is on disk is what is served.
    const files = readdirSync(dir).filter((f) => !f.startsWith("."));
    expect(files.some((f) => readFileSync(join(dir, f)).includes(GPS_TEXT))).toBe(false);

    const again = await h.app.inject({
      method: "GET",
      url: path(a.url),
      headers: { "if-none-match": got.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect(again.headers.etag).toBe(got.headers.etag);
  });

  it("a JPEG: its size from the frame header, EXIF (GPS), XMP, APP13 and comments removed", async () => {
    const res = await upload(alice, jpeg({ width: 33, height: 17, metadata: true }), {
      filename: "IMG_0001.JPG",
      type: "image/jpeg",
    });
    expect(res.statusCode, res.body).toBe(200);
    const a = res.json();
    expect(a.url).toMatch(/\.jpg$/);
    expect(a.media.image).toMatchObject({ width: 33, height: 17 });
    const got = await h.app.inject({ method: "GET", url: path(a.url) });
    expect(got.headers["content-type"]).toBe("image/jpeg");
    expect(got.rawPayload.equals(jpeg({ width: 33, height: 17 }))).toBe(true);
    expect(got.rawPayload.includes("Exif")).toBe(false);
  });

  it("the type comes from the bytes: a PNG named .jpg and sent as image/jpeg is a PNG", async () => {
    const res = await upload(alice, png({ width: 2, height: 3 }), { filename: "photo.jpg", type: "image/jpeg" });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().url).toMatch(/\.png$/);
    const got = await h.app.inject({ method: "GET", url: path(res.json().url) });
    expect(got.headers["content-type"]).toBe("image/png");
  });

  const whole = png({ width: 4, height: 4 });
  it.each([
    ["a script named .png", Buffer.from("<script>alert(1)</script>"), "photo.png"],
    ["a GIF", Buffer.from("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04;", "latin1"), "a.gif"],
    ["a zero-byte file", Buffer.alloc(0), "empty.png"],
    ["a truncated PNG", whole.subarray(0, whole.length - 6), "cut.png"],
    ["a truncated JPEG", jpeg({ width: 9, height: 9 }).subarray(0, 40), "cut.jpg"],
    ["a polyglot (a PNG followed by HTML)", Buffer.concat([whole, Buffer.from("<html><script>x()</script>")]), "p.png"],
    [
      "a PNG signature with a script after it",
      Buffer.concat([PNG_SIGNATURE, Buffer.from("#!/bin/sh\nrm -rf /\n")]),
      "s.png",
    ],
  ])("422 for %s, and nothing is stored", async (_name, bytes, filename) => {
    const before = readdirSync(dir).length;
    const res = await upload(alice, bytes, { filename, type: "image/png" });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ errorCode: "ValidationFailed", details: [{ field: "body/file" }] });
    expect(readdirSync(dir).length).toBe(before);
  });

  it("a file just under 8 MB is accepted; one over it is 413 in the one error body, and nothing is stored", async () => {
    // Stored deflate blocks: the PNG is as large as its pixels (3001 bytes a row).
    const near = png({ width: 1000, height: 2790, level: 0 });
    expect(near.length).toBeLessThanOrEqual(LIMIT);
    expect(near.length).toBeGreaterThan(LIMIT - 50_000);
    const ok = await upload(alice, near);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().media.image).toMatchObject({ width: 1000, height: 2790 });

    const before = readdirSync(dir).length;
    const over = png({ width: 1000, height: 2800, level: 0 });
    expect(over.length).toBeGreaterThan(LIMIT);
    const res = await upload(alice, over);
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json()).toMatchObject({ errorCode: "PayloadTooLarge", requestId: expect.any(String) });
    expect(readdirSync(dir).length).toBe(before);
  });

  it("400 without a `file` part, 415 for a JSON body, 401 without credentials, 403 without feed:write", async () => {
    const noFile = await upload(alice, png({ width: 1, height: 1 }), { name: "image" });
    expect(noFile.statusCode, noFile.body).toBe(400);
    expect(noFile.json().errorCode).toBe("BadRequest");
    const json = await call(alice, "POST", "/api/v1/attachments", { file: "x" });
    expect(json.statusCode, json.body).toBe(415);
    expect((await upload(null, png({ width: 1, height: 1 }))).statusCode).toBe(401);
    const reader = await h.user(["feed:read"]);
    const res = await upload(reader, png({ width: 1, height: 1 }));
    expect(res.statusCode).toBe(403);
  });

  it("a body with two files: the first is the upload, the second is not read, nothing half stored", async () => {
    const one = multipart(png({ width: 2, height: 2 }));
    const boundary = one.headers["content-type"].split("boundary=")[1]!;
    const part = (bytes: Buffer) =>
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
        bytes,
        Buffer.from("\r\n"),
      ]);
    const payload = Buffer.concat([
      part(png({ width: 2, height: 2 })),
      part(png({ width: 3, height: 3 })),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    const res = await h.app.inject({
      method: "POST",
      url: "/api/v1/attachments",
      headers: { ...alice.headers, "x-request-id": rid(), ...one.headers },
      payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().media.image).toMatchObject({ width: 2, height: 2 });
    expect(readdirSync(dir).filter((f) => f.startsWith(".tmp-"))).toEqual([]);
  });

  it("the OpenAPI document describes the upload as multipart with a binary `file`", async () => {
    const doc = (await h.app.inject({ method: "GET", url: "/openapi.json" })).json();
    const op = doc.paths["/api/v1/attachments"].post;
    expect(op.operationId).toBe("uploadAMediaAttachment");
    const schema = op.requestBody.content["multipart/form-data"].schema;
    expect(schema.required).toEqual(["file"]);
    expect(schema.properties.file).toMatchObject({ type: "string", format: "binary" });
    expect(Object.keys(op.responses)).toEqual(
      expect.arrayContaining(["200", "400", "401", "403", "413", "415", "422"]),
    );
    expect(doc.paths["/api/v1/media/{file}"]).toBeUndefined();
  });

  it("404 for an unknown upload, and for a known one under the other extension", async () => {
    const a = (await upload(alice, png({ width: 1, height: 1 }))).json();
    expect((await h.app.inject({ method: "GET", url: path(a.url).replace(".png", ".jpg") })).statusCode).toBe(404);
    const unknown = await h.app.inject({
      method: "GET",
      url: "/api/v1/media/00000000-0000-4000-8000-000000000000.png",
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().errorCode).toBe("NotFound");
    expect((await h.app.inject({ method: "GET", url: "/api/v1/media/..%2F..%2Fetc%2Fpasswd" })).statusCode).toBe(404);
  });

  it("a post with an uploaded image reads back in the post and the feeds, in both attachment forms", async () => {
    const a = (await upload(alice, png({ width: 12, height: 8, metadata: true }))).json();
    const created = await call(alice, "POST", "/api/v1/posts", { message: "my chart", attachments: [a] });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id;
    expect(created.json().attachments[0]).toMatchObject({ url: a.url, mediaType: "Image" });

    const post = await call(bob, "GET", `/api/v1/posts/${id}`);
    expect(post.statusCode, post.body).toBe(200);
    expect(post.json().post.attachments[0]).toMatchObject({
      url: a.url,
      media: { image: { width: 12, height: 8, url: a.url } },
    });

    const feed = await call(bob, "GET", `/api/v1/feeds/user/${alice.user.gcid}`);
    expect(feed.statusCode, feed.body).toBe(200);
    const inFeed = feed.json().discussions.find((d: { id: string }) => d.id === id);
    expect(inFeed.post.attachments[0].url).toBe(a.url);

    const alt = await call(alice, "POST", "/api/v1/feeds/post", {
      message: "again",
      attachments: [{ url: a.url, mediaType: "Image", media: { image: { width: 12, height: 8, url: a.url } } }],
    });
    expect(alt.statusCode, alt.body).toBe(201);
    expect(alt.json().attachments[0]).toMatchObject({ type: "image", thumbnailUrl: a.url });

    const served = await h.app.inject({ method: "GET", url: path(a.url) });
    expect(served.rawPayload.equals(png({ width: 12, height: 8 }))).toBe(true);

    // Tagged on AAPL: the instrument feed (alternate form) and the markets feed (request form).
    const tagged = await call(alice, "POST", "/api/v1/posts", {
      message: "AAPL chart",
      tags: { tags: [{ name: "AAPL", id: "1001" }] },
      attachments: [a],
    });
    expect(tagged.statusCode, tagged.body).toBe(201);
    const find = (page: { discussions: { id: string; post: { attachments: unknown[] } }[] }) =>
      page.discussions.find((d) => d.id === tagged.json().id)!.post.attachments[0];
    const instrument = await call(bob, "GET", "/api/v1/feeds/instrument/1001");
    expect(instrument.statusCode, instrument.body).toBe(200);
    expect(find(instrument.json())).toMatchObject({
      type: "image",
      thumbnailUrl: a.url,
      metadata: { width: 12, height: 8 },
    });
    const markets = await call(bob, "GET", "/api/v1/feeds/markets/1001");
    expect(find(markets.json())).toMatchObject({ url: a.url, mediaType: "Image", media: { image: { width: 12 } } });
  });

  it("a comment may attach the author's upload; another user's upload or an unknown one is 422 on that field", async () => {
    const post = (await call(alice, "POST", "/api/v1/posts", { message: "hello" })).json();
    const mine = (await upload(bob, jpeg({ width: 8, height: 8 }), { type: "image/jpeg" })).json();
    const comment = await call(bob, "POST", `/api/v1/posts/${post.id}/comments`, {
      message: "look",
      attachments: [mine],
    });
    expect(comment.statusCode, comment.body).toBe(201);

    const alices = (await upload(alice, png({ width: 1, height: 1 }))).json();
    const stolen = await call(bob, "POST", "/api/v1/posts", { message: "stolen", attachments: [{ url: alices.url }] });
    expect(stolen.statusCode, stolen.body).toBe(422);
    expect(stolen.json().details).toEqual([
      { field: "body/attachments/0/url", message: expect.stringContaining("you uploaded") },
    ]);
    const inComment = await call(bob, "POST", `/api/v1/posts/${post.id}/comments`, {
      message: "x",
      attachments: [{ url: "https://example.com/a.png" }, { url: alices.url }],
    });
    expect(inComment.statusCode).toBe(422);
    expect(inComment.json().details.map((d: { field: string }) => d.field)).toEqual(["body/attachments/1/url"]);

    const base = alices.url.slice(0, alices.url.lastIndexOf("/") + 1);
    const unknown = await call(bob, "POST", "/api/v1/posts", {
      message: "x",
      attachments: [{ url: `${base}00000000-0000-4000-8000-000000000000.png` }, { url: `${base}nope.gif` }],
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().details.map((d: { field: string }) => d.field)).toEqual([
      "body/attachments/0/url",
      "body/attachments/1/url",
    ]);
    const own = (await call(bob, "POST", "/api/v1/posts", { message: "mine" })).json();
    const edit = await call(bob, "PUT", `/api/v1/posts/${own.id}`, {
      message: "x",
      attachments: [{ url: alices.url }],
    });
    expect(edit.statusCode, edit.body).toBe(422);
    expect(edit.json().details.map((d: { field: string }) => d.field)).toEqual(["body/attachments/0/url"]);
    const editOk = await call(bob, "PUT", `/api/v1/posts/${own.id}`, { message: "x", attachments: [mine] });
    expect(editOk.statusCode, editOk.body).toBe(200);

    const external = await call(bob, "POST", "/api/v1/posts", {
      message: "a link",
      attachments: [
        {
          url: "https://example.com/chart.png",
          mediaType: "Image",
          media: { image: { width: 1, height: 1, url: "https://example.com/chart.png" } },
        },
      ],
    });
    expect(external.statusCode, external.body).toBe(201);
  });

  it("retention deletes uploads no post references after a day (row and file) and keeps referenced ones", async () => {
    const kept = (await upload(alice, png({ width: 3, height: 3 }))).json();
    const dropped = (await upload(alice, png({ width: 3, height: 3 }))).json();
    expect((await call(alice, "POST", "/api/v1/posts", { message: "kept", attachments: [kept] })).statusCode).toBe(201);
    const file = (url: string) => path(url).split("/").pop()!.split(".")[0]!;
    const onDisk = () => readdirSync(dir);

    now += 23 * 3600_000;
    await runRetention(h.deps);
    expect(onDisk()).toContain(file(dropped.url));

    now += 2 * 3600_000;
    const report = await runRetention(h.deps);
    expect(report.media).toBeGreaterThanOrEqual(1);
    expect(onDisk()).not.toContain(file(dropped.url));
    expect(onDisk()).toContain(file(kept.url));
    expect((await h.app.inject({ method: "GET", url: path(dropped.url) })).statusCode).toBe(404);
    expect((await h.app.inject({ method: "GET", url: path(kept.url) })).statusCode).toBe(200);
    // A post can no longer name the deleted upload.
    const late = await call(alice, "POST", "/api/v1/posts", { message: "late", attachments: [dropped] });
    expect(late.statusCode).toBe(422);
  });

  it("a post that names an upload the retention job deletes meanwhile fails whole (the race after the check)", async () => {
    const a = (await upload(alice, png({ width: 2, height: 2 }))).json();
    const id = path(a.url).split("/").pop()!.split(".")[0]!;
    // The post's check saw the upload; then the purge deletes it before the post's transaction.
    const seen = await checkMediaReferences(
      h.deps,
      { add: () => expect.fail("the upload exists") },
      "attachments",
      [a],
      alice.user.id,
    );
    expect(seen).toEqual([id]);
    now += 25 * 3600_000;
    await runRetention(h.deps);
    const write = transact(h.deps, async (trx) => {
      await markMediaReferenced(trx, seen, new Date(now).toISOString());
    });
    await expect(write).rejects.toMatchObject({ code: "ValidationFailed" });
  });
});
