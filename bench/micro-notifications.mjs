// In-process cost of the pieces of the notifications read (µs per call), to see where time goes.
// Usage: npm run build && node bench/micro-notifications.mjs [calls]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../dist/config.js";
import { withActor } from "../dist/modules/context.js";
import { createKeyPairAuthenticator } from "../dist/modules/identity/authenticate.js";
import { listNotifications, pollNotifications } from "../dist/modules/notifications/list-notifications.js";
import { notify } from "../dist/modules/notifications/notify.js";
import { closeDeps, createDeps } from "../dist/runtime.js";
import { issueDemoCredentials, seedDemoWorld } from "../dist/seed/seed.js";

const dir = mkdtempSync(join(tmpdir(), "sta-micro-"));
const N = Number(process.argv[2] ?? 20000);
async function time(label, fn, n = N) {
  for (let i = 0; i < Math.min(1000, n); i++) await fn(i);
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  console.log(`${label.padEnd(52)} ${(((performance.now() - t) * 1000) / n).toFixed(1).padStart(7)} µs`);
}
for (const ttl of ["0", "1000"]) {
  const config = loadConfig({ LOG_LEVEL: "silent", AUTH_CACHE_TTL_MS: ttl }, { database: join(dir, `m${ttl}.db`) });
  const deps = await createDeps(config);
  await seedDemoWorld(deps);
  const k = await issueDemoCredentials(deps);
  const auth = createKeyPairAuthenticator(deps);
  const actor = await auth(k.apiKey, k.userKey);
  await time(`key-pair auth, cache ttl ${ttl} ms`, () => auth(k.apiKey, k.userKey));
  if (ttl === "0") {
    const rows = (await listNotifications(withActor(deps, actor))).messages.length;
    const serialize = (result) => JSON.stringify(result);
    await time(`list notifications from the store (${rows} rows)`, () => listNotifications(withActor(deps, actor)));
    await time("poll, nothing new (kept answer)", () => pollNotifications(deps, actor, serialize));
    await time("poll, nothing new, after a change elsewhere", () => {
      deps.notificationPolls.changed([actor.userId]);
      return pollNotifications(deps, actor, serialize);
    });
    // One new notification per poll: the insert, then a poll that reads and moves it to Seen.
    // The list grows by one per call, so fewer calls.
    const input = { userId: actor.userId, kind: "announcement", message: "m", actionLink: "/" };
    await time("notify (insert + NotificationCreated)", () => notify(deps, input), 100);
    await time(
      "notify + poll that finds it (read + New→Seen)",
      async () => {
        await notify(deps, input);
        return pollNotifications(deps, actor, serialize);
      },
      100,
    );
    const total = (await listNotifications(withActor(deps, actor))).messages.length;
    await time(
      `poll, nothing new, after a change (${total} rows)`,
      () => {
        deps.notificationPolls.changed([actor.userId]);
        return pollNotifications(deps, actor, serialize);
      },
      200,
    );
  }
  await closeDeps(deps);
}
rmSync(dir, { recursive: true, force: true });
