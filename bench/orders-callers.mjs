// Shared by the orders benchmarks: `count` users with key pairs allowed to trade, made in this
// process on a server's store (its SQLite file, or a PostgreSQL URL), as request headers.
import { randomBytes } from "node:crypto";

export async function makeCallers(database, count) {
  const dist = new URL("../dist/", import.meta.url);
  const { loadConfig } = await import(new URL("config.js", dist));
  const { closeDeps, createDeps } = await import(new URL("runtime.js", dist));
  const { systemActor } = await import(new URL("core/actor.js", dist));
  const { withActor } = await import(new URL("modules/context.js", dist));
  const { createUser } = await import(new URL("modules/identity/create-user.js", dist));
  const { createKeyPair } = await import(new URL("modules/identity/key-pairs.js", dist));
  const deps = await createDeps(loadConfig({ LOG_LEVEL: "silent", SEED: "never" }, { database }));
  try {
    const operator = withActor(deps, systemActor("bench"));
    const made = [];
    const tag = randomBytes(3).toString("hex");
    for (let i = 0; i < count; i++) {
      const user = await createUser(operator, { username: `orders_${tag}_${i}`, firstName: "O", lastName: `${i}` });
      const key = await createKeyPair(operator, { user: user.id, scopes: ["trade.demo:write"] });
      made.push({ "x-api-key": key.apiKey, "x-user-key": key.userKey, "content-type": "application/json" });
    }
    return made;
  } finally {
    await closeDeps(deps);
  }
}
