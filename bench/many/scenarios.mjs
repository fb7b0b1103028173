// The many-caller scenarios (docs/decisions/0167). Targets from issue 19; p99 under 20 ms for the
// reads. Limits stay on, raised so that 1,000 callers sharing one run's load never meet a 429.
import { postId } from "../world/sizes.mjs";
import { feedPageOf, orderSequence, pollSequence, socialSequence, writeMix } from "./traffic.mjs";

export const SOCIAL_ENV = {
  RATE_LIMIT_DEFAULT: "1000000000/60s",
  RATE_LIMIT_FEED: "1000000000/60s",
  RATE_LIMIT_WRITES: "1000000000/60s",
};

/** The social writes as `--writes` set them (`writeMix`), for a scenario's heading. */
function writesShown() {
  const { likes, comments, posts } = writeMix;
  const pct = (x) => `${Number((x * 100).toFixed(2))}%`;
  if (likes + comments + posts === 0) return "reads alone";
  return `${pct(likes + comments + posts)} writes (${pct(likes)} likes, ${pct(comments)} comments, ${pct(posts)} new posts)`;
}

export const SCENARIOS = {
  "many-post": {
    get description() {
      return `GET /api/v1/posts/{postId} (Zipf over the world's posts) from 1,000 callers, ${writesShown()}`;
    },
    targets: { minRatio: 0.4, maxP99Ms: 20, maxRssMb: 200 },
    env: SOCIAL_ENV,
    sequence: (world, callers, length, seed) =>
      socialSequence(world, callers, length, (n) => `/api/v1/posts/${postId(n)}`, seed),
  },
  "many-feed": {
    get description() {
      return `GET /api/v1/feeds/users/{author}?take=20&offset=… (the page holding a Zipf-chosen post) from 1,000 callers, ${writesShown()}`;
    },
    targets: { minRatio: 0.25, maxP99Ms: 20, maxRssMb: 300 },
    env: SOCIAL_ENV,
    sequence: (world, callers, length, seed) =>
      socialSequence(world, callers, length, (n) => feedPageOf(world, n), seed),
  },
  "many-notifications": {
    description: "GET /api/v1/notifications/messages, 1,000 callers polling in turn (each at its quota)",
    targets: { minRatio: 0.5, maxP99Ms: 20, maxRssMb: 200 },
    env: { RATE_LIMIT_DEFAULT: "1000000000/60s", RATE_LIMIT_NOTIFICATIONS: "1000000000/1s" },
    sequence: (_world, callers, length, seed) => pollSequence(callers, length, seed),
  },
  "many-orders": {
    description: "POST …/demo/market-open-orders/by-amount from 100 callers, against plain SQLite insert transactions",
    targets: { minRps: 5000 },
    baseline: "plain-inserts",
    env: { RATE_LIMITS_ENABLED: "false", DEMO_BALANCE: "100000000000", MARKET_TICK_MS: "1000" },
    sequence: (_world, callers, length) => orderSequence(callers, 100, length),
  },
};
