import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines, type Harness, rid, startHarness, type TestUser } from "../support/harness.js";
import { multipart, png } from "./images.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An upload whose client goes away half way, over a real socket: nothing is kept, the server goes on. */
describe.each(engines())("an upload cut mid-stream on %s", (engine) => {
  let h: Harness;
  let alice: TestUser;
  let dir: string;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sta-media-cut-"));
    h = await startHarness(engine, { env: { MEDIA_DIR: dir } });
    alice = await h.user(["feed:read", "feed:write"]);
    await h.app.listen({ port: 0, host: "127.0.0.1" });
    port = (h.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const attachmentRows = async () =>
    Number(
      (
        await h.deps.db.kysely
          .selectFrom("attachments")
          .select((e) => e.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("keeps no file and no row when the client disconnects half way through 5 MB, and serves the next upload", async () => {
    const before = await attachmentRows();
    // A real 5 MB PNG: its header is valid, so the server streams it to the store until the cut.
    const body = multipart(png({ width: 1200, height: 1200, level: 0 }));
    expect(body.payload.length).toBeGreaterThan(4 * 1024 * 1024);
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const head = [
      `POST /api/v1/attachments?client_request_id=${rid()} HTTP/1.1`,
      "Host: 127.0.0.1",
      `x-api-key: ${alice.headers["x-api-key"]}`,
      `x-user-key: ${alice.headers["x-user-key"]}`,
      `x-request-id: ${rid()}`,
      `content-type: ${body.headers["content-type"]}`,
      `content-length: ${body.payload.length}`,
      "",
      "",
    ].join("\r\n");
    socket.write(head);
    socket.write(body.payload.subarray(0, 2 * 1024 * 1024));
    // Let the server take in what was sent, then go away.
    await sleep(300);
    socket.destroy();

    // The store ends up empty: no object, no temporary file left behind.
    const deadline = Date.now() + 5000;
    while (readdirSync(dir).length > 0 && Date.now() < deadline) await sleep(20);
    expect(readdirSync(dir)).toEqual([]);
    expect(await attachmentRows()).toBe(before);

    const next = multipart(png({ width: 4, height: 4 }));
    const ok = await h.app.inject({
      method: "POST",
      url: `/api/v1/attachments?client_request_id=${rid()}`,
      headers: { ...alice.headers, "x-request-id": rid(), ...next.headers },
      payload: next.payload,
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await attachmentRows()).toBe(before + 1);
    expect(readdirSync(dir)).toHaveLength(1);
  });
});
