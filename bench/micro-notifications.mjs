// In-process cost of the pieces of the notifications read (µs per call), to see where time goes.
// Usage: npm run build && node bench/micro-notifications.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../dist/config.js";
import { withActor } from "../dist/modules/context.js";
import { createKeyPairAuthenticator } from "../dist/modules/identity/authenticate.js";
import { listNotifications } from "../dist/modules/notifications/list-notifications.js";
import { closeDeps, createDeps } from "../dist/runtime.js";
import { issueDemoCredentials, seedDemoWorld } from "../dist/seed/seed.js";

const dir = mkdtempSync(join(tmpdir(), "sta-micro-"));
const N = Number(process.argv[2] ?? 20000);
async function time(label, _deps, fn) {
  for (let i = 0; i < 1000; i++) await fn();
  const t = performance.now();
  for (let i = 0; i < N; i++) await fn();
  console.log(`${label.padEnd(40)} ${(((performance.now() - t) * 1000) / N).toFixed(1).padStart(7)} µs`);
}
for (const ttl of ["0", "1000"]) {
  const config = loadConfig({ LOG_LEVEL: "silent", AUTH_CACHE_TTL_MS: ttl }, { database: join(dir, `m${ttl}.db`) });
  const deps = await createDeps(config);
  await seedDemoWorld(deps);
  const k = await issueDemoCredentials(deps);
  const auth = createKeyPairAuthenticator(deps);
  const actor = await auth(k.apiKey, k.userKey);
  await time(`key-pair auth, cache ttl ${ttl} ms`, deps, () => auth(k.apiKey, k.userKey));
  if (ttl === "0") await time("list notifications (4 rows)", deps, () => listNotifications(withActor(deps, actor)));
  await closeDeps(deps);
}
rmSync(dir, { recursive: true, force: true });
