// What each kind of social request costs in process (app.inject: no sockets, one request at a
// time), on a copy of a seeded world: CPU microseconds per read of a post, per like, per comment
// and per new post, callers and posts chosen as bench/many.mjs chooses them. Steadier than the
// many-caller runs (no load generator beside the server, no baseline), so it is the yardstick for
// a change to the write path; the many-caller runs remain the figures the targets are judged by.
// Usage: npm run build && node bench/world/seed.mjs --world small --out /tmp/world &&
//        node bench/social-writes-inproc.mjs --reuse /tmp/world [--world small] [--count N] [--rounds R]
//        [--only read,like,comment,post] [--profile FILE]   (FILE: a .cpuprofile of the measured rounds only)
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildApp } from "../dist/app.js";
import { loadConfig } from "../dist/config.js";
import { closeDeps, createDeps } from "../dist/runtime.js";
import { copyOfStore, median } from "./lib.mjs";
import { SOCIAL_ENV } from "./many/scenarios.mjs";
import { socialSequence, writeMix } from "./many/traffic.mjs";
import { WORLDS } from "./world/sizes.mjs";

const { values } = parseArgs({
  options: {
    reuse: { type: "string" },
    world: { type: "string", default: "small" },
    count: { type: "string", default: "3000" },
    rounds: { type: "string", default: "3" },
    only: { type: "string", default: "read,like,comment,post" },
    profile: { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (values.help || !values.reuse) {
  console.log(
    "usage: node bench/social-writes-inproc.mjs --reuse DIR [--world small] [--count N] [--rounds R] [--only read,like,comment,post]\n" +
      "DIR holds a world seeded by bench/world/seed.mjs (--out DIR); it is copied, never changed.",
  );
  process.exit(values.help ? 0 : 2);
}
const world = WORLDS[values.world];
if (!world) throw new Error(`unknown world ${values.world}: ${Object.keys(WORLDS).join(", ")}`);
const count = Number(values.count);
const rounds = Number(values.rounds);
const callers = JSON.parse(readFileSync(join(values.reuse, `${values.world}.callers.json`), "utf8"));
const store = copyOfStore(join(values.reuse, `${values.world}.db`), "sta-social-inproc-");
const config = loadConfig({ ...SOCIAL_ENV, LOG_LEVEL: "silent", SANDBOX: "off" }, { database: store.file });
const deps = await createDeps(config);
const app = await buildApp(config, deps);

/** `length` requests of one kind (the many-caller sequence with only that kind in its mix). */
function sequenceOf(kind, length, seed) {
  const mix = { likes: 0, comments: 0, posts: 0 };
  if (kind !== "read") mix[`${kind}s`] = 1;
  Object.assign(writeMix, mix);
  return socialSequence(world, callers, length, (n) => `/api/v1/posts/${postIdOf(n)}`, seed);
}
const postIdOf = (n) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

async function send(r) {
  const res = await app.inject({ method: r.method, url: r.path, headers: r.headers, payload: r.body });
  if (res.statusCode >= 300) throw new Error(`${r.method} ${r.path}: ${res.statusCode} ${res.body}`);
}

/** CPU microseconds per request over `requests`, sent one after another. */
async function cpuPer(requests) {
  const cpu = process.cpuUsage();
  for (const r of requests) await send(r);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / requests.length;
}

try {
  // Warm: the hot posts' documents built, every caller's key pair and marks read once.
  process.stderr.write("warming up…\n");
  await cpuPer(sequenceOf("read", 20_000, 7));
  const kinds = values.only.split(",");
  const figures = Object.fromEntries(kinds.map((k) => [k, []]));
  const session = values.profile ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
  }
  for (let round = 0; round < rounds; round++) {
    for (const kind of kinds) figures[kind].push(await cpuPer(sequenceOf(kind, count, 100 + round)));
    process.stderr.write(
      `round ${round + 1}/${rounds}: ${kinds.map((k) => `${k} ${figures[k].at(-1).toFixed(0)}`).join(", ")} µs\n`,
    );
  }
  if (session) {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(values.profile, JSON.stringify(profile));
    session.disconnect();
  }
  console.log(`CPU µs per request (median of ${rounds} rounds of ${count}, one at a time through app.inject)`);
  for (const kind of kinds) console.log(`${kind.padEnd(8)} ${median(figures[kind]).toFixed(0).padStart(6)}`);
} finally {
  await app.close();
  await closeDeps(deps);
  store.drop();
}
