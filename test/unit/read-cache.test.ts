import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Computed,
  dependenciesOf,
  LISTINGS,
  postKey,
  SocialReadCache,
  userKey,
} from "../../src/modules/social/shared/read-cache.js";

const body = (text: string) => Buffer.from(text);
const answer =
  (text: string, deps: string[]): (() => Promise<Computed>) =>
  async () => ({ body: body(text), deps });

/** A cache on a clock of its own; `external`: the store's count of other connections' commits. */
function cacheAt(
  settings: Partial<{ maxBytes: number; maxAgeMs: number }> = {},
  external: () => number | undefined = () => undefined,
) {
  let now = 0;
  const cache = new SocialReadCache({ maxBytes: 1024, maxAgeMs: 60_000, ...settings }, () => now, external);
  return { cache, advance: (ms: number) => (now += ms) };
}

describe("the social read cache", () => {
  it("serves a kept answer until a change names one of its dependencies", async () => {
    const { cache } = cacheAt();
    expect(cache.peek("k")).toBeUndefined();
    await cache.fill("k", answer("v1", [postKey("p1"), userKey("u1")]));
    expect(cache.peek("k")?.toString()).toBe("v1");

    cache.changed({ postIds: ["p2"], userIds: ["u2"], listings: true });
    expect(cache.peek("k")?.toString(), "unrelated changes keep it").toBe("v1");

    cache.changed({ postIds: [], userIds: ["u1"], listings: false });
    expect(cache.peek("k"), "a change of its user drops it").toBeUndefined();
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });

  it("never keeps an answer computed while something it shows changed", async () => {
    const { cache } = cacheAt();
    await cache.fill("k", async () => {
      // The write commits (and its event arrives) while this read is running.
      cache.changed({ postIds: ["p1"], userIds: [], listings: false });
      return { body: body("maybe stale"), deps: [postKey("p1")] };
    });
    expect(cache.peek("k")).toBeUndefined();
    await cache.fill("k", answer("fresh", [postKey("p1")]));
    expect(cache.peek("k")?.toString()).toBe("fresh");
  });

  it("keeps a patched part as of the change, and drops what a failing patcher would have patched", () => {
    const { cache } = cacheAt();
    const like = { postId: "p1", postSeq: 1, id: "l1", seq: 7, userId: "u1", createdAt: "", owner: {} };
    cache.keep("doc", "likes: 1", 8, [postKey("p1")], cache.current);
    cache.keep("other", "shows p1 too", 12, [postKey("p1")], cache.current);
    cache.patchWith((event, kept) =>
      event.like ? [{ key: "doc", value: `${kept("doc")} + ${event.like.id}`, size: 13 }] : [],
    );
    cache.changed({ postIds: ["p1"], userIds: ["u1"], listings: false, like });
    expect(cache.peekValue("doc"), "patched, current after the change").toBe("likes: 1 + l1");
    expect(cache.peekValue("other"), "not patched: stale").toBeUndefined();

    cache.keep("other", "shows p1 too", 12, [postKey("p1")], cache.current);
    cache.patchWith(() => {
      throw new Error("a patcher's bug");
    });
    cache.changed({ postIds: ["p1"], userIds: ["u1"], listings: false, like: { ...like, id: "l2", seq: 8 } });
    expect(cache.peekValue("doc"), "the other patcher still patches").toBe("likes: 1 + l1 + l2");
    expect(cache.peekValue("other"), "the change is marked despite the failure").toBeUndefined();
  });

  it("drops feed answers when listings change, not post answers", async () => {
    const { cache } = cacheAt();
    await cache.fill("feed", answer("page", [LISTINGS, postKey("p1")]));
    await cache.fill("post", answer("post", [postKey("p1")]));
    cache.changed({ postIds: ["p9"], userIds: [], listings: true });
    expect(cache.peek("feed")).toBeUndefined();
    expect(cache.peek("post")?.toString()).toBe("post");
  });

  it("recomputes answers older than the maximum age, even without a change", async () => {
    const { cache, advance } = cacheAt({ maxAgeMs: 1000 });
    await cache.fill("k", answer("v", []));
    advance(1000);
    expect(cache.peek("k")?.toString()).toBe("v");
    advance(1);
    expect(cache.peek("k")).toBeUndefined();
  });

  it("renews a document at its maximum age while no other connection committed since its build", () => {
    let version = 5;
    const { cache, advance } = cacheAt({ maxAgeMs: 1000 }, () => version);
    cache.keep("doc", "doc", 3, [postKey("p1")], cache.startBuild(), true);
    cache.keep("answer", "answer", 6, [], cache.current);
    advance(1001);
    expect(cache.peekValue("doc"), "renewed: nothing but this instance wrote").toBe("doc");
    expect(cache.peekValue("answer"), "not renewable: aged out as before").toBeUndefined();
    expect(cache.stats().renewals).toBe(1);
    advance(600);
    version = 6;
    expect(cache.peekValue("doc"), "within its renewed age").toBe("doc");
    advance(401);
    expect(cache.peekValue("doc"), "another connection wrote: aged out").toBeUndefined();
    cache.changed({ postIds: ["p1"], userIds: [], listings: false });
    cache.keep("doc", "doc 2", 5, [postKey("p1")], cache.startBuild(), true);
    advance(1001);
    expect(cache.peekValue("doc"), "built after that write: renewed").toBe("doc 2");
  });

  it("never renews a document whose build started before another connection's commit, patched or not", () => {
    let version = 1;
    const { cache, advance } = cacheAt({ maxAgeMs: 1000 }, () => version);
    const like = { postId: "p1", postSeq: 1, id: "l1", seq: 7, userId: "u1", createdAt: "", owner: {} };
    cache.patchWith((event, kept) => (event.like ? [{ key: "patched", value: `${kept("patched")}+`, size: 3 }] : []));
    const since = cache.startBuild();
    version = 2;
    cache.keep("doc", "doc", 3, [], since, true);
    cache.keep("patched", "p", 1, [postKey("p1")], since, true);
    cache.startBuild();
    cache.changed({ postIds: ["p1"], userIds: ["u1"], listings: false, like });
    expect(cache.peekValue("patched")).toBe("p+");
    advance(1001);
    expect(cache.peekValue("doc")).toBeUndefined();
    expect(cache.peekValue("patched"), "a patch does not make its build newer").toBeUndefined();
    expect(cache.stats().renewals).toBe(0);
  });

  it("renews nothing where other connections' commits are not counted (PostgreSQL)", () => {
    const { cache, advance } = cacheAt({ maxAgeMs: 1000 });
    cache.keep("doc", "doc", 3, [], cache.startBuild(), true);
    advance(1001);
    expect(cache.peekValue("doc")).toBeUndefined();
  });

  it("never serves a document more than the maximum age after another connection's commit", () => {
    type Step = { build: true } | { commit: true } | { advance: number } | { change: true };
    const step = fc.oneof(
      fc.constant<Step>({ build: true }),
      fc.constant<Step>({ commit: true }),
      fc.constant<Step>({ change: true }),
      fc.integer({ min: 1, max: 1200 }).map<Step>((ms) => ({ advance: ms })),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let version = 0;
        let now = 0;
        const cache = new SocialReadCache(
          { maxBytes: 1024, maxAgeMs: 1000 },
          () => now,
          () => version,
        );
        // The model: when the kept document's build started, and the commits made since.
        let builtAt: number | undefined;
        const commits: number[] = [];
        for (const s of steps) {
          if ("build" in s) {
            cache.keep("doc", "doc", 3, [postKey("p1")], cache.startBuild(), true);
            builtAt = now;
            commits.length = 0;
          } else if ("commit" in s) {
            version++;
            commits.push(now);
          } else if ("change" in s) {
            cache.changed({ postIds: ["p1"], userIds: [], listings: false });
            builtAt = undefined;
          } else now += s.advance;
          const served = cache.peekValue("doc") !== undefined;
          if (builtAt === undefined) expect(served).toBe(false);
          else if (served) for (const at of commits) expect(now - at).toBeLessThanOrEqual(1000);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("keeps within its byte budget, dropping the oldest answers first", async () => {
    const { cache } = cacheAt({ maxBytes: 10 });
    await cache.fill("a", answer("aaaa", []));
    await cache.fill("b", answer("bbbb", []));
    await cache.fill("c", answer("cccc", []));
    expect(cache.peek("a")).toBeUndefined();
    expect(cache.peek("b")?.toString()).toBe("bbbb");
    expect(cache.peek("c")?.toString()).toBe("cccc");
    await cache.fill("big", answer("x".repeat(11), []));
    expect(cache.peek("big"), "an answer larger than the budget is not kept").toBeUndefined();
    expect(cache.stats().bytes).toBe(8);
  });

  it("evicts an unread answer before one read since it was kept (a second chance)", async () => {
    const { cache } = cacheAt({ maxBytes: 12 });
    await cache.fill("a", answer("aaaa", []));
    await cache.fill("b", answer("bbbb", []));
    await cache.fill("c", answer("cccc", []));
    expect(cache.peek("a")?.toString()).toBe("aaaa");
    await cache.fill("d", answer("dddd", []));
    expect(cache.peek("b"), "the oldest unread goes first").toBeUndefined();
    await cache.fill("e", answer("eeee", []));
    expect(cache.peek("c"), "then the next unread one").toBeUndefined();
    await cache.fill("f", answer("ffff", []));
    // "a" was passed over once and read again since; "d" was not read.
    expect(cache.peek("d")).toBeUndefined();
    expect(cache.peek("a")?.toString()).toBe("aaaa");
    expect(cache.stats()).toMatchObject({ entries: 3, bytes: 12 });
  });

  it("holds its budget and keeps what it just stored, whatever is read and kept", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 1, max: 6 })), {
          maxLength: 80,
        }),
        (steps) => {
          const { cache } = cacheAt({ maxBytes: 16 });
          for (const [read, k, size] of steps) {
            const key = `k${k}`;
            if (read) cache.peekValue(key);
            else {
              cache.keep(key, key, size, [], cache.current);
              expect(cache.peekValue(key)).toBe(key);
            }
            expect(cache.stats().bytes).toBeLessThanOrEqual(16);
          }
        },
      ),
    );
  });

  it("keeps nothing when disabled", async () => {
    const { cache } = cacheAt({ maxBytes: 0 });
    expect((await cache.fill("k", answer("v", []))).toString()).toBe("v");
    expect(cache.peek("k")).toBeUndefined();
  });

  it("after any interleaving of changes, serves only answers none of whose dependencies changed since", async () => {
    const keys = ["p1", "p2", "p3"];
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(fc.record({ fill: fc.subarray(keys, { minLength: 1 }) }), fc.record({ change: fc.subarray(keys) })),
          { maxLength: 30 },
        ),
        async (steps) => {
          const { cache } = cacheAt();
          // What each kept answer was made of, and the changes seen since (the model).
          const model = new Map<string, { deps: string[]; stale: boolean }>();
          for (const step of steps) {
            if ("fill" in step) {
              const key = step.fill.join(",");
              await cache.fill(key, answer(key, step.fill.map(postKey)));
              model.set(key, { deps: step.fill, stale: false });
            } else {
              cache.changed({ postIds: step.change, userIds: [], listings: false });
              for (const m of model.values()) if (m.deps.some((d) => step.change.includes(d))) m.stale = true;
            }
          }
          for (const [key, m] of model) expect(cache.peek(key) !== undefined).toBe(!m.stale);
        },
      ),
    );
  });

  it("names the posts an answer shows, the posts they share and the caller", () => {
    expect(
      dependenciesOf(
        [
          { id: "a", sharedPostId: null, sharedOriginPostId: null },
          { id: "s", sharedPostId: "a", sharedOriginPostId: "o" },
        ],
        "me",
      ),
    ).toEqual([postKey("a"), postKey("s"), postKey("o"), userKey("me")]);
    expect(dependenciesOf([{ id: "a", sharedPostId: null, sharedOriginPostId: null }], null)).toEqual([postKey("a")]);
  });
});
