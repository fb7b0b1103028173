// The worlds the many-caller scenarios run in (docs/decisions/0167, 0168), and the deterministic
// ids the seeder writes: a scenario computes a post's or a user's id from its index, so neither
// side keeps a million ids in memory.

/** `callers` hold key pairs; posts are written by `authors` users (50 each); likes spread over every user. */
export const WORLDS = {
  small: { users: 1_000, callers: 1_000, posts: 10_000, likes: 100_000, comments: 5_000 },
  default: { users: 10_000, callers: 1_000, posts: 100_000, likes: 1_000_000, comments: 50_000 },
  large: { users: 100_000, callers: 1_000, posts: 1_000_000, likes: 10_000_000, comments: 500_000 },
};

/** Posts per author: each author's feed is a few 20-post pages deep. */
export const POSTS_PER_AUTHOR = 50;

export const authorsOf = (w) => Math.min(w.users, Math.max(1, Math.floor(w.posts / POSTS_PER_AUTHOR)));

const hex12 = (n) => n.toString(16).padStart(12, "0");
/** Post n's id (a valid v4-shaped uuid, variant 8). */
export const postId = (n) => `00000000-0000-4000-8000-${hex12(n)}`;
/** User n's id (variant 9). */
export const userId = (n) => `00000000-0000-4000-9000-${hex12(n)}`;
/** Post n's author index. */
export const authorOf = (w, n) => n % authorsOf(w);
/** The instruments posts are tagged with (the seeded catalog's first ids). */
export const TAG_INSTRUMENTS = [1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010];
