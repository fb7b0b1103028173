import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, ok } from "../../packages/client/src/index.js";
import { type Harness, startHarness, type TestUser } from "../support/harness.js";

const run = promisify(execFile);
const EXAMPLES = join(import.meta.dirname, "../../packages/client/examples");
/** The scopes of the key pair `npm start` prints for the demo user (src/seed/seed.ts). */
const DEMO_SCOPES = [
  "notifications:read",
  "notifications:write",
  "feed:read",
  "feed:write",
  "watchlist:read",
  "watchlist:write",
  "demo:read",
  "demo:write",
];

/** The README's examples, run as written (node, the built package) against a listening server. */
describe("the client's examples against a real server", () => {
  let h: Harness;
  let baseUrl: string;
  let trader: TestUser;
  const env = (u: TestUser) => ({
    ...process.env,
    BASE_URL: baseUrl,
    API_KEY: u.headers["x-api-key"]!,
    USER_KEY: u.headers["x-user-key"]!,
  });

  beforeAll(async () => {
    h = await startHarness("sqlite");
    await h.app.listen({ port: 0, host: "127.0.0.1" });
    baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    trader = await h.user(DEMO_SCOPES);
  });
  afterAll(async () => h.close());

  it("are quoted whole in the README", () => {
    const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8");
    for (const file of ["trading-bot.mjs", "social-reader.mjs"]) {
      expect(readme, file).toContain(readFileSync(join(EXAMPLES, file), "utf8"));
    }
  });

  it("the trading bot watches Bitcoin, opens a position with a stop-loss, sees its event, closes it", async () => {
    const { stdout } = await run(process.execPath, [join(EXAMPLES, "trading-bot.mjs")], {
      env: env(trader),
      timeout: 30_000,
    });
    const [bidLine, openLine, closeLine] = stdout.trim().split("\n");
    expect(bidLine).toMatch(/^BTC bid \d+(\.\d+)?$/);
    const opened = /^opened position (\d+) at [\d.]+, stop-loss (\d+)$/.exec(openLine ?? "");
    expect(opened, stdout).not.toBeNull();
    expect(Number(opened![2])).toBeLessThan(Number(bidLine!.split(" ")[2]));
    expect(closeLine).toMatch(/^closed at [\d.]+: net profit -?[\d.]+ USD \(Manual\)$/);
    // What the bot did, read back over REST: the position was opened with its stop-loss and is closed.
    const sta = createClient({
      baseUrl,
      credentials: { apiKey: trader.headers["x-api-key"]!, userKey: trader.headers["x-user-key"]! },
    });
    const history = await ok(
      sta.api.GET("/api/v1/trading/info/trade/demo/history", { params: { query: { minDate: "2000-01-01" } } }),
    );
    const closed = history.find((t) => t.positionId === Number(opened![1]));
    expect(closed?.stopLossRate).toBe(Number(opened![2]));
  });

  it("the social reader walks the for-you feed and likes a post", async () => {
    const author = await h.user(DEMO_SCOPES);
    const writer = createClient({
      baseUrl,
      credentials: { apiKey: author.headers["x-api-key"]!, userKey: author.headers["x-user-key"]! },
    });
    for (let i = 0; i < 12; i++) await writer.api.POST("/api/v1/posts", { body: { message: `Note ${i} on $BTC` } });
    const reader = await h.user(DEMO_SCOPES);
    // For you: the posts of people you follow, and of trending instruments.
    await createClient({
      baseUrl,
      credentials: { apiKey: reader.headers["x-api-key"]!, userKey: reader.headers["x-user-key"]! },
    }).api.POST("/api/v1/users/{userId}/follows", { params: { path: { userId: String(author.user.gcid) } } });
    const { stdout } = await run(process.execPath, [join(EXAMPLES, "social-reader.mjs")], {
      env: env(reader),
      timeout: 30_000,
    });
    expect(stdout).toContain(`${author.user.username}: Note`);
    expect(stdout).toMatch(/read 2 page\(s\)/);
    const liked = /liked ([0-9a-f-]{36}): 1 like\(s\)/.exec(stdout);
    expect(liked, stdout).not.toBeNull();
    const post = await ok(writer.api.GET("/api/v1/posts/{postId}", { params: { path: { postId: liked![1]! } } }));
    expect(post.emotionsData.like.paging.totalCount).toBe(1);
  });
});
