// The many-caller traffic (docs/decisions/0167): a fixed, seeded sequence of requests, each from
// one of the world's callers with its own key pair, at a target chosen by a Zipf law over the
// world's posts, mixed with writes that invalidate what they touch.
import { randomUUID } from "node:crypto";
import { mulberry32 } from "../../dist/core/random.js";
import { authorOf, authorsOf, postId, userId } from "../world/sizes.mjs";

/** The seeded PRNG (mulberry32): the same sequence on every run and for both targets. */
export const rng = mulberry32;

/**
 * Zipf over ranks 0..n-1 with exponent s: P(rank k) ∝ 1/(k+1)^s. Rank k is mapped to a post by a
 * fixed permutation, so the hot posts are spread over the table rather than all the newest.
 */
export function zipf(n, s, random) {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) {
    sum += 1 / (k + 1) ** s;
    cdf[k] = sum;
  }
  return () => {
    const u = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    // A multiplicative permutation of 0..n-1 (2654435761 is odd and, for our sizes, coprime to n).
    return Number((BigInt(lo) * 2654435761n) % BigInt(n));
  };
}

const headersOf = (c, body) => ({
  "x-api-key": c.apiKey,
  "x-user-key": c.userKey,
  ...(body ? { "content-type": "application/json" } : {}),
});

/** A request of the sequence: `caller` indexes the first `pool` callers; headers are the first pass's. */
const entry = (callers, caller, pool, method, path, body, key) => ({
  method,
  path,
  body,
  key,
  caller,
  pool,
  headers: headersOf(callers[caller], body),
});

/** The 20-post page of post n's author's feed that holds post n (newest first). */
export function feedPageOf(world, n) {
  const authors = authorsOf(world);
  const a = authorOf(world, n);
  const count = Math.ceil((world.posts - a) / authors);
  const position = count - 1 - Math.floor(n / authors);
  return `/api/v1/feeds/users/${userId(a)}?take=20&offset=${Math.floor(position / 20) * 20}`;
}

/** The share of the social scenarios' requests that are each kind of write (`--writes`). */
export const writeMix = { likes: 0.02, comments: 0.02, posts: 0.01 };

/**
 * `length` requests: `read(n)` gives the read of Zipf-chosen post n; by default 5% are writes on a
 * Zipf-chosen post (2% likes, 2% comments, 1% new posts: `writeMix`). `key` names the baseline's answer.
 */
export function socialSequence(world, callers, length, read, seed = 19) {
  const random = rng(seed);
  const pick = zipf(world.posts, 1, random);
  const out = [];
  for (let i = 0; i < length; i++) {
    const c = Math.floor(random() * callers.length);
    const n = pick();
    const r = random();
    const { likes: L, comments: C, posts: P } = writeMix;
    if (r < 1 - L - C - P) {
      const path = read(n);
      out.push(entry(callers, c, callers.length, "GET", path, undefined, `GET ${path}`));
    } else if (r < 1 - C - P) {
      out.push(write(callers, c, `/api/v1/posts/${postId(n)}/likes`));
    } else if (r < 1 - P) {
      out.push(write(callers, c, `/api/v1/posts/${postId(n)}/comments`, { message: "A comment from a bench caller" }));
    } else {
      out.push(write(callers, c, "/api/v1/posts", { message: "A new post from a bench caller" }));
    }
  }
  return out;
}

function write(callers, c, path, body) {
  const text = body ? JSON.stringify(body) : undefined;
  const template = path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ":id");
  return entry(callers, c, callers.length, "POST", path, text, `POST ${template}`);
}

/** Notification polls, callers in a shuffled round robin: each polls once per pass over all. */
export function pollSequence(callers, length, seed = 19) {
  const random = rng(seed);
  const order = callers.map((_c, i) => [random(), i]).sort((a, b) => a[0] - b[0]);
  const path = "/api/v1/notifications/messages";
  return Array.from({ length }, (_, i) =>
    entry(callers, order[i % order.length][1], callers.length, "GET", path, undefined, `GET ${path}`),
  );
}

/** Market orders from the first `count` callers, round robin. */
export function orderSequence(callers, count, length) {
  const body = JSON.stringify({ InstrumentID: 1001, IsBuy: true, Leverage: 1, Amount: 10 });
  const path = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
  return Array.from({ length }, (_, i) => entry(callers, i % count, count, "POST", path, body, `POST ${path}`));
}

/**
 * autocannon's per-request hook: the sequence's next request, a fresh x-request-id on each. Each
 * pass over the sequence shifts every request's caller (by 389, prime to the pools' sizes), so a
 * caller does not replay its own earlier reads: the pairs (caller, URL) keep changing, as with
 * real users, while the URLs (and the baseline's answers to them) stay the ones captured.
 */
export function cursor(sequence, callers) {
  let i = 0;
  return (req) => {
    const pass = Math.floor(i / sequence.length);
    const r = sequence[i++ % sequence.length];
    const c = callers[(r.caller + pass * 389) % r.pool];
    const headers = { ...headersOf(c, r.body), "x-request-id": randomUUID() };
    return { ...req, method: r.method, path: r.path, body: r.body, headers };
  };
}
