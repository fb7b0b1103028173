// In-process cost of authenticating a request (µs per call): bearer token vs key pair, with and
// without the auth cache, and a whole GET /api/v1/me through app.inject (SQLite).
// Usage: npm run build && node bench/micro-bearer.mjs [iterations]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../dist/app.js";
import { loadConfig } from "../dist/config.js";
import { systemActor } from "../dist/core/actor.js";
import { withActor } from "../dist/modules/context.js";
import { createKeyPairAuthenticator } from "../dist/modules/identity/authenticate.js";
import { createUser } from "../dist/modules/identity/create-user.js";
import { createKeyPair } from "../dist/modules/identity/key-pairs.js";
import { createBearerAuthenticator } from "../dist/modules/oauth/access-tokens.js";
import { issuerFor } from "../dist/modules/oauth/issuer.js";
import { mintAccessToken } from "../dist/modules/oauth/mint-token.js";
import { closeDeps, createDeps } from "../dist/runtime.js";

const dir = mkdtempSync(join(tmpdir(), "sta-micro-bearer-"));
const N = Number(process.argv[2] ?? 5000);
async function time(label, fn) {
  for (let i = 0; i < 500; i++) await fn();
  const t = performance.now();
  for (let i = 0; i < N; i++) await fn();
  console.log(`${label.padEnd(44)} ${(((performance.now() - t) * 1000) / N).toFixed(1).padStart(7)} µs`);
}
for (const ttl of ["0", "1000"]) {
  const env = { LOG_LEVEL: "silent", AUTH_CACHE_TTL_MS: ttl, RATE_LIMITS_ENABLED: "false" };
  const config = loadConfig(env, { database: join(dir, `b${ttl}.db`) });
  const deps = await createDeps(config);
  const op = withActor(deps, systemActor("bench"));
  const user = await createUser(op, { username: "bench" });
  const pair = await createKeyPair(op, { user: user.id, scopes: ["user-info:read"] });
  const { access_token: token } = await mintAccessToken(op, { user: user.id, scopes: ["user-info:read"] });
  const bearer = createBearerAuthenticator(deps, () => issuerFor(config));
  const keyPair = createKeyPairAuthenticator(deps);
  const checked = await bearer(token);
  if ("refused" in checked) throw new Error(`bearer token refused: ${checked.refused}`);
  if (!(await keyPair(pair.apiKey, pair.userKey))) throw new Error("key pair rejected");
  await time(`bearer auth, cache ttl ${ttl} ms`, () => bearer(token));
  await time(`key-pair auth, cache ttl ${ttl} ms`, () => keyPair(pair.apiKey, pair.userKey));
  const app = await buildApp(config, deps);
  for (const [label, headers] of [
    ["bearer", { authorization: `Bearer ${token}` }],
    ["key pair", { "x-api-key": pair.apiKey, "x-user-key": pair.userKey }],
  ]) {
    await time(`GET /api/v1/me (${label}), cache ttl ${ttl} ms`, async () => {
      const res = await app.inject({ method: "GET", url: "/api/v1/me", headers });
      if (res.statusCode !== 200) throw new Error(`${label}: ${res.statusCode}`);
    });
  }
  await app.close();
  await closeDeps(deps);
}
rmSync(dir, { recursive: true, force: true });
