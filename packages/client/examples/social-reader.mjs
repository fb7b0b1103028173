// @ts-check
// A social reader: walk the for-you feed page by page, then like the first post you have not liked.
// API_KEY=sta_ak_… USER_KEY=sta_uk_… node packages/client/examples/social-reader.mjs
import { createClient, ok } from "@social-trading-api/client";

const { BASE_URL = "http://127.0.0.1:8080", API_KEY = "", USER_KEY = "" } = process.env;
const client = createClient({ baseUrl: BASE_URL, credentials: { apiKey: API_KEY, userKey: USER_KEY } });

let toLike;
let pages = 0;
for await (const page of client.pages("/api/v1/feeds/for-you", { params: { query: { take: 10 } } })) {
  pages += 1;
  for (const { post, requesterContext } of page.discussions) {
    console.log(`${post.owner.username}: ${post.message.text.slice(0, 60)}`);
    if (!toLike && !requesterContext.isLiking) toLike = post;
  }
  if (pages === 3) break;
}
console.log(`read ${pages} page(s)`);

if (toLike) {
  await client.api.POST("/api/v1/posts/{postId}/likes", { params: { path: { postId: toLike.id } } });
  const post = await ok(client.api.GET("/api/v1/posts/{postId}", { params: { path: { postId: toLike.id } } }));
  console.log(`liked ${post.id}: ${post.emotionsData.like.paging.totalCount} like(s)`);
}
