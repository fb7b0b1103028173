// Demo orders per second over HTTP (POST .../market-open-orders/by-amount, each a committed
// transaction: idempotency key, guarded debit, order, position) from many callers, each with its
// own key pair, and in the same run the same server with group commit off (decision 0172).
// Usage: npm run build && node bench/trading-orders.mjs [--duration S] [--rounds R] [--callers N]
//        [--connections C] [--engine sqlite|postgres] [--synchronous normal|full] [--against MAIN]
//        [--no-ceiling] [--floor [--floor-with K=V[;K=V]] …] [--profile [--top N]] [--sql-timing FILE]
// --callers N (default 100): N users, one connection each (C defaults to N), every order with a
// fresh x-request-id. SQLite compares SQLITE_GROUP_COMMIT=on against off in alternating rounds, and
// gives the plain-insert rate beside; PostgreSQL (a fresh database on BENCH_PG_URL's server, bench/world/engines.mjs)
// runs its one path. Every figure comes with the server's CPU per order, steadier than throughput
// on a shared machine. Target (issue 19): at least 5,000 orders per second on SQLite.
// --against MAIN: another build's dist/main.js (e.g. an older commit's) served the same way in the
// same rounds, so a change is measured before/after in one run. Each round also loads a plain Node
// server answering an order's bytes with the same autocannon load ("ceiling": what this machine's
// load generator and sockets allow at all, the app's work aside); --no-ceiling skips it.
// --floor (SQLite): also loads bench/orders-floor-server.mjs, a plain server that runs each order's
// SQL as the app does (same statements, group commit, checkpointer thread) and nothing else, on a
// store of its own made by the app: what an order costs beyond its storage. Each --floor-with adds
// another floor, with those settings (orders-floor-server.mjs: FLOOR_PAGE_SIZE, FLOOR_DROP_INDEXES,
// FLOOR_SKIP). The floors run with --synchronous as the app does.
// --profile: the group-commit-on server's CPU is profiled over its measured rounds
// (bench/profile-on-signal.mjs), each round's top N functions by self time printed (stderr); the
// last round's .cpuprofile stays for Chrome DevTools. --sql-timing FILE: that server's SQLite
// statements are timed (bench/sql-timing.mjs), warm-up included, and written to FILE when it stops.
// Both slow that server a little: its figures (and ofCeiling, ofFloor) are then not the plain run's.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  load,
  median,
  plainInserts,
  preload,
  profileSummary,
  signalledFile,
  startApp,
  startBaseline,
  startResponder,
} from "./lib.mjs";
import { makeCallers } from "./orders-callers.mjs";
import { createEngine } from "./world/engines.mjs";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "8" },
    rounds: { type: "string", default: "2" },
    callers: { type: "string", default: "100" },
    connections: { type: "string" },
    engine: { type: "string", default: "sqlite" },
    synchronous: { type: "string", default: "normal" },
    against: { type: "string" },
    "no-ceiling": { type: "boolean", default: false },
    floor: { type: "boolean", default: false },
    "floor-with": { type: "string", multiple: true, default: [] },
    profile: { type: "boolean", default: false },
    "sql-timing": { type: "string" },
    top: { type: "string", default: "30" },
  },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const callers = Number(values.callers);
const connections = Number(values.connections ?? callers);
const engine = values.engine;
const PATH = "/api/v1/trading/execution/demo/market-open-orders/by-amount";
const BODY = JSON.stringify({ InstrumentID: 1001, IsBuy: true, Leverage: 1, Amount: 10 });
const env = {
  // Limits off (a quota would cap the figure), a balance no run can spend, a slow tick so the
  // trigger loop does not compete.
  RATE_LIMITS_ENABLED: "false",
  DEMO_BALANCE: "100000000000",
  MARKET_TICK_MS: "1000",
  SQLITE_SYNCHRONOUS: values.synchronous,
};

const PROFILED = engine === "postgres" ? "postgres" : "group commit on";
const profDir = values.profile ? mkdtempSync(join(tmpdir(), "sta-orders-profile-")) : undefined;

/** The load's request: one caller per connection, every order its own x-request-id (the same id is a replay). */
function ordersFrom(keys) {
  let next = 0;
  return {
    method: "POST",
    path: PATH,
    headers: keys[0],
    body: BODY,
    setupRequest: (req, context) => {
      context.caller ??= keys[next++ % keys.length];
      return { ...req, headers: { ...context.caller, "x-request-id": randomUUID() } };
    },
  };
}

/** One server of a variant, its callers made, warmed up. */
async function startVariant(label, extraEnv, main) {
  const store = engine === "postgres" ? await createEngine("postgres") : undefined;
  const profiled = profDir && label === PROFILED;
  const timed = values["sql-timing"] && label === PROFILED;
  const app = await startApp(
    {
      ...env,
      ...store?.env,
      ...extraEnv,
      ...(profiled ? { PROFILE_DIR: profDir } : {}),
      ...(timed ? { SQL_TIMING_OUT: resolve(values["sql-timing"]) } : {}),
    },
    [...(profiled ? preload("./profile-on-signal.mjs") : []), ...(timed ? preload("./sql-timing.mjs") : [])],
    store?.database,
    main,
  );
  process.stderr.write(`${label}: making ${callers} callers…\n`);
  const keys = await makeCallers(store ? store.database : join(app.dir, "bench.db"), callers);
  process.stderr.write(`${label}: warming up…\n`);
  const request = ordersFrom(keys);
  const first = await fetch(app.baseUrl + PATH, {
    method: "POST",
    headers: { ...keys[0], "x-request-id": randomUUID() },
    body: BODY,
  });
  if (first.status !== 200) throw new Error(`${label}: an order answered ${first.status}: ${await first.text()}`);
  await load(app.baseUrl, request, { duration: 2, connections });
  return {
    label,
    app,
    request,
    runs: [],
    async stop() {
      await app.stop();
      await store?.drop();
    },
  };
}

const variants =
  engine === "postgres"
    ? [["postgres", {}]]
    : [
        ["group commit off", { SQLITE_GROUP_COMMIT: "off" }],
        ["group commit on", { SQLITE_GROUP_COMMIT: "on" }],
      ];
// The other build runs with group commit on (its default), beside this build's two variants.
if (values.against)
  variants.unshift([
    `against ${values.against}`,
    engine === "postgres" ? {} : { SQLITE_GROUP_COMMIT: "on" },
    values.against,
  ]);
const FLOOR = "floor (plain server, the order's SQL)";

/**
 * The floor (--floor): a store made by the app (migrated, its callers made, each caller's first
 * order placed so that its account and watchlists exist), then served by the plain floor server.
 */
async function startFloor(answer, settings = "") {
  // "K=V;K=V" (a value may hold commas: FLOOR_DROP_INDEXES=a,b).
  const extra = {};
  for (const kv of settings ? settings.split(";") : []) {
    const at = kv.indexOf("=");
    if (at < 1) throw new Error(`--floor-with: "${kv}" is not K=V (settings are separated by ";")`);
    extra[kv.slice(0, at)] = kv.slice(at + 1);
  }
  const dir = mkdtempSync(join(tmpdir(), "sta-orders-floor-"));
  const database = join(dir, "floor.db");
  let server;
  try {
    const maker = await startApp(env, [], database);
    let keys;
    try {
      process.stderr.write(`floor: making ${callers} callers…\n`);
      keys = await makeCallers(database, callers);
      for (const headers of keys) {
        const res = await fetch(maker.baseUrl + PATH, {
          method: "POST",
          headers: { ...headers, "x-request-id": randomUUID() },
          body: BODY,
        });
        if (res.status !== 200) throw new Error(`floor: a caller's first order answered ${res.status}`);
      }
    } finally {
      await maker.stop();
    }
    server = await startResponder(
      "bench/orders-floor-server.mjs",
      answer,
      { ...extra, FLOOR_DB: database, FLOOR_SYNCHRONOUS: values.synchronous },
      "floor",
    );
    const request = ordersFrom(keys);
    await load(server.baseUrl, request, { duration: 2, connections });
    return {
      label: settings ? `${FLOOR}; ${settings}` : FLOOR,
      app: server,
      request,
      runs: [],
      async stop() {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

const started = [];
const inserts = [];
let ceiling;
try {
  for (const [label, extra, main] of variants) started.push(await startVariant(label, extra, main));
  // One of the app's answers, served by the ceiling and the floor.
  let answer;
  if (!values["no-ceiling"] || (values.floor && engine === "sqlite")) {
    const v = started.at(-1);
    const res = await fetch(v.app.baseUrl + PATH, {
      method: "POST",
      headers: { ...v.request.headers, "x-request-id": randomUUID() },
      body: BODY,
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    answer = { status: res.status, contentType: res.headers.get("content-type"), body: bytes.toString("base64") };
  }
  if (values.floor && engine === "sqlite") {
    started.push(await startFloor(answer));
    for (const settings of values["floor-with"]) started.push(await startFloor(answer, settings));
  }
  if (!values["no-ceiling"]) {
    // A plain server answering an order's exact bytes: every request costs it next to nothing.
    const v = started.find((s) => s.label === PROFILED) ?? started.at(-1);
    const server = await startBaseline(answer);
    ceiling = {
      label: "ceiling (plain server, an order's bytes)",
      app: server,
      request: v.request,
      runs: [],
      stop: () => server.stop(),
    };
    started.push(ceiling);
  }
  for (let i = 0; i < rounds; i++) {
    // Alternating order, so neither side always runs on the warmer (or busier) machine.
    const order = i % 2 === 0 ? started : [...started].reverse();
    for (const v of order) {
      process.stderr.write(`round ${i + 1}/${rounds}: ${v.label}…\n`);
      const profiled = profDir && v.label === PROFILED;
      // SIGWINCH starts the profile, the next one writes it: only the measured rounds are in it.
      if (profiled) {
        rmSync(join(profDir, `${v.app.pid}.cpuprofile`), { force: true });
        process.kill(v.app.pid, "SIGWINCH");
      }
      v.runs.push(await load(v.app.baseUrl, v.request, { duration, connections, pid: v.app.pid }));
      if (profiled) {
        await signalledFile(v.app.pid, "SIGWINCH", join(profDir, `${v.app.pid}.cpuprofile`));
        process.stderr.write(`${v.label}, round ${i + 1}: ${profileSummary(profDir, Number(values.top)).join("\n")}\n`);
      }
    }
    if (engine === "sqlite") {
      const app = started.find((v) => v.label === "group commit on");
      inserts.push((await plainInserts(app.runs.at(-1).ok)).rps);
    }
  }
} finally {
  for (const v of started) await v.stop();
}

const summary = (runs) => ({
  ordersPerSecond: Math.round(median(runs.map((r) => r.ok / duration))),
  p99Ms: median(runs.map((r) => r.p99)),
  serverCpuUsPerOrder: Math.round(median(runs.map((r) => r.cpuUsPerRequest))),
  non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
  errors: runs.reduce((a, r) => a + r.errors, 0),
  serverPeakRssMb: Math.round(Math.max(...runs.map((r) => r.peakRssMb))),
  rounds: runs.map((r) => Math.round(r.ok / duration)),
});
const results = Object.fromEntries(started.map((v) => [v.label, summary(v.runs)]));
const last = results[engine === "postgres" ? "postgres" : "group commit on"];
const floor = results[FLOOR];
const report = {
  scenario: "trading-orders",
  at: new Date().toISOString(),
  options: { engine, callers, connections, duration, rounds, synchronous: values.synchronous },
  results,
  ...(engine === "sqlite"
    ? {
        plainInsertsPerSecond: Math.round(median(inserts)),
        groupCommitGain: Number((last.ordersPerSecond / results["group commit off"].ordersPerSecond).toFixed(2)),
        target: last.ordersPerSecond >= 5000 ? "MET (>= 5000 orders/s)" : "MISSED (< 5000 orders/s)",
        ...(ceiling
          ? { ofCeiling: Number((last.ordersPerSecond / results[ceiling.label].ordersPerSecond).toFixed(2)) }
          : {}),
        ...(floor ? { ofFloor: Number((last.ordersPerSecond / floor.ordersPerSecond).toFixed(2)) } : {}),
      }
    : {}),
};
console.log(JSON.stringify(report, null, 2));
if (Object.values(results).some((r) => r.non2xx > 0 || r.errors > 0)) {
  console.log("non-2xx answers or failed requests during the run: the figures are not valid");
  process.exitCode = 1;
}
