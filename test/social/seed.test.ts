import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED_POSTS } from "../../src/modules/social/seed-social.js";
import { issueDemoCredentials, seedDemoWorld } from "../../src/seed/seed.js";
import { engines, type Harness, startHarness } from "../support/harness.js";

describe.each(engines())("the seeded social world on %s", (engine) => {
  let h: Harness;
  let headers: Record<string, string>;
  let demoGcid: number;
  beforeAll(async () => {
    h = await startHarness(engine);
    const report = await seedDemoWorld(h.deps);
    demoGcid = report.demoUser.gcid;
    const key = await issueDemoCredentials(h.deps, "test");
    headers = { "x-api-key": key.apiKey, "x-user-key": key.userKey };
  }, 60_000);
  afterAll(async () => h.close());

  const get = async (url: string) => {
    const res = await h.app.inject({ method: "GET", url, headers: { ...headers, "x-request-id": randomUUID() } });
    expect(res.statusCode, `${url} ${res.body}`).toBe(200);
    return res.json();
  };

  it("every feed is non-empty for the demo user on first start", async () => {
    for (const url of [
      "/api/v1/feeds/saved",
      "/api/v1/feeds/following",
      "/api/v1/feeds/for-you",
      "/api/v1/feeds/news",
      `/api/v1/feeds/users/${demoGcid}`,
      `/api/v1/feeds/users/${demoGcid}/pinned`,
      "/api/v1/feeds/users/alice",
    ]) {
      expect((await get(url)).discussions.length, url).toBeGreaterThan(0);
    }
    const news = await get("/api/v1/feeds/news?take=100");
    const types = new Set(news.discussions.map((d: { post: { type: string } }) => d.post.type));
    expect(types).toEqual(new Set(["Default", "Poll", "Share"]));
    expect(
      news.discussions.some(
        (d: { summary: { totalCommentsAndReplies: number } }) => d.summary.totalCommentsAndReplies > 0,
      ),
    ).toBe(true);
    expect(
      news.discussions.some(
        (d: { emotionsData: { like: { paging: { totalCount: number } } } }) =>
          d.emotionsData.like.paging.totalCount > 0,
      ),
    ).toBe(true);
    const tagged = news.discussions.find((d: { post: { tags: unknown[] } }) => d.post.tags.length > 0);
    const instrument = tagged.post.tags[0].market.id;
    expect((await get(`/api/v1/feeds/markets/${instrument}`)).discussions.length).toBeGreaterThan(0);
  });

  it("seeding again adds nothing", async () => {
    const count = async () =>
      Number(
        (
          await h.deps.db.kysely
            .selectFrom("posts")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count()).toBe(SEED_POSTS);
    await seedDemoWorld(h.deps);
    expect(await count()).toBe(SEED_POSTS);
  });
});
