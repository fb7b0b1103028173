import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MeResponse } from "../../src/modules/identity/identity.schemas.js";
import { engines, type Harness, startHarness } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";

describe.each(engines())("GET /api/v1/me on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(async () => h.close());

  it("returns the caller in upstream's shape with the credential's prefixed scopes", async () => {
    const u = await h.user(["feed:read", "service-public:notifications:read"], { username: "Ada_Lovelace" });
    const res = await h.app.inject({ method: "GET", url: "/api/v1/me", headers: u.headers });
    expect(res.statusCode).toBe(200);
    const me = res.json();
    expectSchema(MeResponse, me);
    expect(me).toMatchObject({
      gcid: u.user.gcid,
      username: "Ada_Lovelace",
      firstName: "Test",
      scopes: ["service-public:feed:read", "service-public:notifications:read"],
    });
    expect(me.demoCid).not.toBe(me.realCid);
  });

  it("gives each user a distinct integer gcid", async () => {
    const a = await h.user([]);
    const b = await h.user([]);
    expect(Number.isInteger(a.user.gcid)).toBe(true);
    expect(a.user.gcid).not.toBe(b.user.gcid);
  });
});
