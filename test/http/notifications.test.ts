import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotificationResult } from "../../src/modules/notifications/notifications.schemas.js";
import { notify } from "../../src/modules/notifications/notify.js";
import { engines, type Harness, rid, startHarness } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";

const URL = "/api/v1/notifications/messages";

describe.each(engines())("notifications on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(async () => h.close());

  const list = (headers: Record<string, string>) =>
    h.app.inject({ method: "GET", url: URL, headers: { ...headers, "x-request-id": rid() } });

  it("lists the caller's notifications newest first, counts New, then moves New to Seen", async () => {
    const u = await h.user(["notifications:read"]);
    await notify(h.deps, {
      userId: u.user.id,
      kind: "announcement",
      message: "older",
      actionLink: "/docs",
      publishDate: "2026-01-01T00:00:00.000Z",
    });
    await notify(h.deps, {
      userId: u.user.id,
      kind: "announcement",
      message: "newer",
      actionLink: "/docs",
      publishDate: "2026-01-02T00:00:00.000Z",
    });

    const first = await list(u.headers);
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expectSchema(NotificationResult, body);
    // The welcome notification (from the UserRegistered event) is the newest.
    expect(body.messages.map((m: { message: string }) => m.message)).toEqual([
      expect.stringContaining("Welcome"),
      "newer",
      "older",
    ]);
    expect(body.meta.notSeen).toBe(3);
    expect(body.messages.every((m: { readStatus: string }) => m.readStatus === "New")).toBe(true);

    const second = (await list(u.headers)).json();
    expect(second.meta.notSeen).toBe(0);
    expect(second.messages.map((m: { readStatus: string }) => m.readStatus)).toEqual(["Seen", "Seen", "Seen"]);
  });

  it("PATCH marks every notification Read and answers 204 with no body", async () => {
    const u = await h.user(["notifications:read", "notifications:write"]);
    await notify(h.deps, { userId: u.user.id, kind: "announcement", message: "x", actionLink: "/docs" });
    const patch = await h.app.inject({ method: "PATCH", url: URL, headers: { ...u.headers, "x-request-id": rid() } });
    expect(patch.statusCode).toBe(204);
    expect(patch.body).toBe("");
    const after = (await list(u.headers)).json();
    expect(after.meta.notSeen).toBe(0);
    expect(after.messages.length).toBe(2);
    expect(after.messages.every((m: { readStatus: string }) => m.readStatus === "Read")).toBe(true);
  });

  it("never shows another user's notifications", async () => {
    const a = await h.user(["notifications:read", "notifications:write"]);
    const b = await h.user(["notifications:read", "notifications:write"]);
    await notify(h.deps, { userId: a.user.id, kind: "announcement", message: "for a only", actionLink: "/docs" });
    const seenByB = (await list(b.headers)).json();
    expect(seenByB.messages.map((m: { message: string }) => m.message)).not.toContain("for a only");
    // b marking its own as read leaves a's untouched
    await h.app.inject({ method: "PATCH", url: URL, headers: { ...b.headers, "x-request-id": rid() } });
    const seenByA = (await list(a.headers)).json();
    expect(seenByA.meta.notSeen).toBe(2);
  });

  it("422 when x-request-id is missing or not a uuid, naming the header", async () => {
    const u = await h.user(["notifications:read"]);
    const { "x-request-id": _omit, ...noId } = u.headers;
    const missing = await h.app.inject({ method: "GET", url: URL, headers: noId });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errorCode).toBe("ValidationFailed");
    expect(missing.json().details[0].field).toBe("headers/x-request-id");
    const bad = await h.app.inject({ method: "GET", url: URL, headers: { ...noId, "x-request-id": "not-a-uuid" } });
    expect(bad.statusCode).toBe(422);
    expect(bad.headers["x-request-id"]).toBe("not-a-uuid");
  });

  it("flags right-to-left messages", async () => {
    const u = await h.user(["notifications:read"]);
    await notify(h.deps, { userId: u.user.id, kind: "announcement", message: "שלום עולם", actionLink: "/docs" });
    const body = (await list(u.headers)).json();
    const rtl = body.messages.find((m: { message: string }) => m.message === "שלום עולם");
    expect(rtl.rtlLanguage).toBe(true);
    expect(body.messages.find((m: { message: string }) => m.message.startsWith("Welcome")).rtlLanguage).toBe(false);
  });
});
