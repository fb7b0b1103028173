#!/usr/bin/env node
// A helper of bench/realtime.mjs: makes COUNT users, each with a key pair reading market data
// (trade.demo:read), in the app's SQLite file, as `users create` and `keys create` would, in one
// process instead of two CLI runs per user. Prints `{ "keys": [{ apiKey, userKey }, …] }`.
//   node bench/realtime-users.mjs --database FILE --count N
import { parseArgs } from "node:util";
import { loadConfig } from "../dist/config.js";
import { systemActor } from "../dist/core/actor.js";
import { withActor } from "../dist/modules/context.js";
import { createUser } from "../dist/modules/identity/create-user.js";
import { createKeyPair } from "../dist/modules/identity/key-pairs.js";
import { closeDeps, createDeps } from "../dist/runtime.js";

const { values } = parseArgs({ options: { database: { type: "string" }, count: { type: "string" } } });
const count = Number(values.count);
const config = loadConfig(undefined, { database: values.database }, { logLevel: "warn" });
const deps = await createDeps(config, { migrate: false });
const ctx = withActor(deps, systemActor("bench"));
const keys = [];
try {
  const run = Date.now().toString(36);
  for (let i = 0; i < count; i++) {
    const user = await createUser(ctx, { username: `rt-${run}-${i}` });
    const { apiKey, userKey } = await createKeyPair(ctx, {
      user: user.id,
      scopes: ["trade.demo:read"],
      appName: "bench",
    });
    keys.push({ apiKey, userKey });
  }
} finally {
  await closeDeps(deps);
}
console.log(JSON.stringify({ keys }));
