// Shared preparation of the social scenarios: content created through the public API.
import { randomUUID } from "node:crypto";

/** Generous limits: they stay on (their cost is in the figure) but a run cannot exhaust them. */
export const SOCIAL_BENCH_ENV = {
  RATE_LIMIT_DEFAULT: "1000000000/60s",
  RATE_LIMIT_FEED: "1000000000/60s",
  RATE_LIMIT_WRITES: "1000000000/60s",
};

export function client(app) {
  const headers = { "x-api-key": app.demo.apiKey, "x-user-key": app.demo.userKey };
  return {
    headers,
    async call(method, path, body) {
      const res = await fetch(`${app.baseUrl}${path}`, {
        method,
        headers: {
          ...headers,
          "x-request-id": randomUUID(),
          ...(body ? { "content-type": "application/json" } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.status === 204 || res.status === 202 ? null : res.json();
    },
  };
}

/** `n` tagged discussions on one instrument, each with a comment and a like. */
export async function taggedPosts(app, instrumentId, n) {
  const c = client(app);
  const ids = [];
  for (let i = 0; i < n; i++) {
    const post = await c.call("POST", "/api/v1/posts", {
      message: `Bench post ${i} on the instrument`,
      tags: { tags: [{ id: String(instrumentId) }] },
    });
    await c.call("POST", `/api/v1/posts/${post.id}/comments`, { message: "A comment" });
    await c.call("POST", `/api/v1/posts/${post.id}/likes`);
    ids.push(post.id);
  }
  return { c, ids };
}
