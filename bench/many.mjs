#!/usr/bin/env node
// Many-caller benchmarks (docs/decisions/0167): 1,000 callers with their own key pairs, Zipf-chosen
// posts and feed pages with 5% writes, notification polls, orders from 100 callers; on SQLite
// and/or PostgreSQL, in a world of 10k, 100k or 1M posts (decision 0168). Each scenario's app is
// loaded in alternating rounds with a plain node:http server answering the same bytes per URL.
// usage: npm run build && node bench/many.mjs [scenario ...] [--engine sqlite,postgres]
//        [--world small|default|large, or a list: small,large also prints the scale comparison]
//        [--duration S] [--rounds N] [--connections C[,C…]] [--sequence N] [--warm N] [--reuse DIR]
//        [--profile [--top N]] [--perf [--top N]] [--cache-stats] [--writes L,C,P] [--sql-timing FILE]
//        [--heap-snapshot FILE] [--against DIR]
// --warm N: before the rounds the app answers N requests of earlier traffic (the same scenario,
// another seed: other callers, other posts of the same Zipf law), as a server that has been up
// serves the measured traffic; 0 measures from a cold start (docs/decisions/0179).
// --profile: the app's CPU is profiled over the measured rounds (bench/profile-on-signal.mjs); its
// busiest functions are printed per scenario. Its self time in system calls (writev) is an upper
// bound: V8 samples a thread as it comes back from one (docs/decisions/0201).
// --perf: Linux perf records the app's CPU (every thread, cpu-clock) over the measured rounds, with
// the JavaScript named (bench/perf-record.mjs): the kernel's share, writev's, and the top symbols.
// --writes L,C,P: the shares of the social scenarios' requests that like, comment and post
// (default 0.02,0.02,0.01); e.g. 0,0,0 for reads alone, to price each kind of write (0197, 0198).
// --cache-stats: the app runs with METRICS=on; the read cache's misses are printed after each of the
// app's rounds, and its hits, misses, entries and bytes after the rounds (the recorder adds a little
// CPU per request: compare like with like).
// --sql-timing FILE: the app's SQLite statements are timed (bench/sql-timing.mjs) and written to
// FILE when it stops: calls, total and mean microseconds per SQL text, slowest first (one
// scenario per run: each scenario's app overwrites FILE). It adds a few microseconds a statement.
// --heap-snapshot FILE: after the rounds the app writes a heap snapshot to FILE.<scenario>
// (bench/heap-on-signal.mjs); `node bench/heap-summary.mjs FILE.<scenario>` says what it holds.
// --against DIR: another build of the server (a checkout with its dist/ built, e.g. main's parent in
// /tmp/before) is loaded in the same rounds, in turn with the app and the baseline, on its own copy
// of the same store; its figures and the app's ratios to them are printed per scenario (SQLite
// only: two servers on one PostgreSQL database would see each other's writes).
import { spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import {
  copyOfStore,
  cpuSeconds,
  median,
  plainInserts,
  preload,
  profileSummary,
  rssMb,
  signalledFile,
  startApp,
} from "./lib.mjs";
import { SCENARIOS } from "./many/scenarios.mjs";
import { cursor, writeMix } from "./many/traffic.mjs";
import { PERF_NODE_ARGS, perfMissing, perfSummary, startPerf } from "./perf-record.mjs";
import { createEngine } from "./world/engines.mjs";
import { seedWorld } from "./world/seed.mjs";
import { WORLDS } from "./world/sizes.mjs";

/** A reused world keeps what the server stored sealed; any fixed key opens it again. */
const SECRETS_KEY_FOR_REUSE = Buffer.alloc(32, 19).toString("base64");
/** Connections loading each target unless `--connections` says otherwise. */
const DEFAULT_CONNECTIONS = 50;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    engine: { type: "string", default: "sqlite" },
    world: { type: "string", default: "default" },
    duration: { type: "string", default: "8" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: String(DEFAULT_CONNECTIONS) },
    sequence: { type: "string", default: "5000" },
    warm: { type: "string", default: "20000" },
    reuse: { type: "string" },
    profile: { type: "boolean", default: false },
    perf: { type: "boolean", default: false },
    "cache-stats": { type: "boolean", default: false },
    "heap-snapshot": { type: "string" },
    writes: { type: "string", default: "0.02,0.02,0.01" },
    "sql-timing": { type: "string" },
    against: { type: "string" },
    top: { type: "string", default: "30" },
    help: { type: "boolean", default: false },
  },
});
const names = positionals.length ? positionals : Object.keys(SCENARIOS);
if (values.help || names.some((n) => !SCENARIOS[n])) {
  console.log(
    `usage: node bench/many.mjs [scenario ...] [--engine sqlite,postgres] [--world small|default|large] [--duration S] [--rounds N] [--connections C[,C…]] [--sequence N] [--warm N] [--reuse DIR] [--profile [--top N]] [--perf [--top N]] [--cache-stats] [--writes L,C,P] [--sql-timing FILE] [--heap-snapshot FILE] [--against DIR]\nscenarios: ${Object.keys(SCENARIOS).join(", ")}`,
  );
  process.exit(values.help ? 0 : 2);
}
const noPerf = values.perf ? perfMissing() : undefined;
if (noPerf) {
  console.error(`--perf: ${noPerf}`);
  process.exit(2);
}
const mix = values.writes.split(",").map(Number);
if (mix.length !== 3 || mix.some((x) => !(x >= 0)) || mix[0] + mix[1] + mix[2] > 1) {
  console.error(`--writes takes three shares (likes, comments, posts) summing to at most 1, e.g. 0.02,0.02,0.01`);
  process.exit(2);
}
[writeMix.likes, writeMix.comments, writeMix.posts] = mix;
// --connections 50,20: every scenario at each load in turn (a p99 target is read at a load that
// reaches the ratio: decision 0211).
const loads = values.connections.split(",").map(Number);
if (loads.some((c) => !Number.isInteger(c) || c < 1) || new Set(loads).size !== loads.length) {
  console.error(`--connections takes distinct whole numbers from 1, comma-separated, e.g. 50 or 50,20`);
  process.exit(2);
}
/** A file named after a run's load when it is not the default one (results, SQL timings, snapshots). */
const atLoad = (connections) => (connections === DEFAULT_CONNECTIONS ? "" : `-c${connections}`);
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const engines = values.engine.split(",");
const againstMain = values.against ? join(resolve(values.against), "dist/main.js") : undefined;
if (againstMain && !existsSync(againstMain)) {
  console.error(`--against: ${againstMain} is missing (build that checkout first: npx tsc -b tsconfig.build.json)`);
  process.exit(2);
}
if (againstMain && engines.includes("postgres")) {
  console.error("--against runs on SQLite only: two servers on one PostgreSQL database would see each other's writes");
  process.exit(2);
}
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
const log = (s) => process.stderr.write(`${s}\n`);

/** Loads `baseUrl` with the sequence (from its start), sampling the server's memory and CPU. */
async function load(baseUrl, sequence, callers, { duration, connections, pid }) {
  let peak = rssMb(pid);
  const cpuBefore = cpuSeconds(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 250);
  try {
    const r = await autocannon({
      url: baseUrl,
      connections,
      duration,
      requests: [{ setupRequest: cursor(sequence, callers) }],
    });
    return {
      rps: r.requests.average,
      p99: r.latency.p99,
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
      ok: r["2xx"],
      peakRssMb: Math.max(peak, rssMb(pid)),
      cpuUsPerRequest: ((cpuSeconds(pid) - cpuBefore) * 1e6) / r.requests.total,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** The app's answer to each distinct key of the sequence (writes: one real write of each kind). */
async function capture(baseUrl, sequence) {
  const firsts = new Map();
  for (const r of sequence) if (!firsts.has(r.key)) firsts.set(r.key, r);
  const todo = [...firsts.values()];
  const answers = [];
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const r = todo[next++];
      const res = await fetch(baseUrl + r.path, {
        method: r.method,
        headers: { ...r.headers, "x-request-id": crypto.randomUUID() },
        body: r.body,
      });
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status >= 300) throw new Error(`${r.method} ${r.path}: ${res.status} ${body}`);
      answers.push([
        r.key,
        { status: res.status, contentType: res.headers.get("content-type"), body: body.toString("base64") },
      ]);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return answers;
}

async function startMapBaseline(answers) {
  const dir = mkdtempSync(join(tmpdir(), "sta-many-baseline-"));
  // One answer per line: the large world's feed pages together pass a string's largest length.
  const file = join(dir, "answers.ndjson");
  const fd = openSync(file, "w");
  for (const a of answers) writeSync(fd, `${JSON.stringify(a)}\n`);
  closeSync(fd);
  const child = spawn(process.execPath, [fileURLToPath(new URL("./many/map-baseline-server.mjs", import.meta.url))], {
    env: { ...process.env, BASELINE_MAP: file },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise((resolve, reject) => {
    child.stdout.once("data", (c) => resolve(JSON.parse(String(c)).port));
    child.once("exit", (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const summary = (rs) => ({
  rps: median(rs.map((r) => r.rps)),
  p99: median(rs.map((r) => r.p99)),
  non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
  errors: rs.reduce((a, r) => a + r.errors, 0),
  peakRssMb: Math.max(...rs.map((r) => r.peakRssMb)),
  cpuUsPerRequest: median(rs.map((r) => r.cpuUsPerRequest)),
});

/** One scenario at `opts.connections` for `opts.duration` s per round. */
async function runScenario(name, engine, world, callers, opts) {
  const s = SCENARIOS[name];
  // The sandbox (on by default outside production) snapshots the whole store into memory at each
  // start (decision 0152): a development aid production runs without, off here.
  const env = {
    ...engine.env,
    SANDBOX: "off",
    ...(values["cache-stats"] ? STATS_ENV : {}),
    ...(values["sql-timing"] ? { SQL_TIMING_OUT: resolve(`${values["sql-timing"]}${atLoad(opts.connections)}`) } : {}),
    ...s.env,
  };
  const sequence = s.sequence(world, callers, Number(values.sequence));
  const profDir = values.profile && !s.baseline ? mkdtempSync(join(tmpdir(), "sta-many-profile-")) : undefined;
  const heapFile =
    values["heap-snapshot"] && !s.baseline
      ? resolve(`${values["heap-snapshot"]}.${name}${atLoad(opts.connections)}`)
      : undefined;
  const perfFile =
    values.perf && !s.baseline ? join(mkdtempSync(join(tmpdir(), "sta-many-perf-")), "perf.data") : undefined;
  const nodeArgs = [
    ...(profDir ? preload("./profile-on-signal.mjs") : []),
    ...(perfFile ? PERF_NODE_ARGS : []),
    ...(values["sql-timing"] ? preload("./sql-timing.mjs") : []),
    ...(heapFile ? preload("./heap-on-signal.mjs") : []),
  ];
  let perf;
  const plain = s.baseline === "plain-inserts";
  let app = await startApp(env, [], engine.database);
  let baseline;
  let against;
  let againstStore;
  try {
    if (!plain) {
      log(`capturing the app's answers to ${new Set(sequence.map((r) => r.key)).size} distinct requests…`);
      const answers = await capture(app.baseUrl, sequence);
      baseline = await startMapBaseline(answers);
      // A fresh process: the capture must not have warmed the app's caches.
      await app.stop();
      if (againstMain) {
        // The same store as the app's, copied now: both start from the capture's writes.
        againstStore = copyOfStore(engine.database, "sta-many-against-");
        against = await startApp(env, [], againstStore.file, againstMain);
      }
      const appEnv = {
        ...env,
        ...(profDir ? { PROFILE_DIR: profDir } : {}),
        ...(heapFile ? { HEAP_SNAPSHOT_FILE: heapFile } : {}),
      };
      app = await startApp(appEnv, nodeArgs, engine.database);
    }
    if (plain && againstMain)
      log("--against does not apply here: compare order paths with bench/trading-orders.mjs --against");
    const earlier = plain ? 0 : Number(values.warm);
    const servers = { app, against };
    if (earlier > 0) {
      const history = s.sequence(world, callers, earlier, 7);
      for (const [who, server] of Object.entries(servers)) {
        if (!server) continue;
        log(`warming up${who === "against" ? " the other build" : ""}: ${earlier} requests of earlier traffic…`);
        const r = await autocannon({
          url: server.baseUrl,
          connections: opts.connections,
          amount: earlier,
          requests: [{ setupRequest: cursor(history, callers) }],
        });
        log(`  ${r.requests.total} answered at ${Math.round(r.requests.average)} req/s (cold), ${r.non2xx} not 2xx`);
      }
    }
    log("warming up…");
    if (!plain) {
      // Every distinct request of the measured traffic answered once, then 2 s of it: on the large
      // world a first pass takes longer than 2 s (each request a build), and its builds landed in
      // round 1 as misses the rounds after it no longer have (docs/decisions/0212).
      for (const server of [app, against]) {
        if (!server) continue;
        const r = await autocannon({
          url: server.baseUrl,
          connections: opts.connections,
          amount: sequence.length,
          requests: [{ setupRequest: cursor(sequence, callers) }],
        });
        log(`  one pass: ${r.requests.total} answered at ${Math.round(r.requests.average)} req/s, ${r.non2xx} not 2xx`);
      }
    }
    const warm = { ...opts, duration: 2 };
    for (const server of [app, baseline, against]) {
      if (server) await load(server.baseUrl, sequence, callers, { ...warm, pid: server.pid });
    }
    const runs = { app: [], baseline: [], against: [] };
    // Each round loads every target once; the order turns, so none is always first after a pause.
    const order = ["app", "baseline", ...(against ? ["against"] : [])];
    if (profDir) process.kill(app.pid, "SIGWINCH");
    if (perfFile) perf = startPerf(app.pid, perfFile);
    for (let i = 0; i < rounds; i++) {
      const turn = order.map((_, k) => order[(k + i) % order.length]);
      for (const who of turn) {
        log(`round ${i + 1}/${rounds}: ${who}…`);
        if (who === "baseline" && plain) runs.baseline.push(await plainInserts(runs.app.at(-1)?.ok ?? 10_000));
        else {
          const target = { app, baseline, against }[who];
          const before =
            values["cache-stats"] && who === "app" && !plain ? await cacheCounters(app.baseUrl) : undefined;
          runs[who].push(await load(target.baseUrl, sequence, callers, { ...opts, pid: target.pid }));
          if (before) log(roundMisses(before, await cacheCounters(app.baseUrl)));
        }
      }
    }
    if (profDir) await signalledFile(app.pid, "SIGWINCH", join(profDir, `${app.pid}.cpuprofile`));
    if (perf) {
      await perf.stop();
      log(`${name} on ${engine.kind}, ${perfSummary(perfFile, app.pid, Number(values.top)).join("\n")}`);
    }
    if (values["cache-stats"]) log(await cacheStats(app.baseUrl));
    if (heapFile) {
      rmSync(heapFile, { force: true });
      const written = await signalledFile(app.pid, "SIGURG", heapFile);
      log(`heap snapshot: ${written} (node bench/heap-summary.mjs FILE)`);
    }
    return {
      app: summary(runs.app),
      baseline: summary(runs.baseline),
      ...(against ? { against: summary(runs.against) } : {}),
      runs,
    };
  } finally {
    await baseline?.stop();
    await against?.stop();
    againstStore?.drop();
    await app.stop();
    if (profDir) {
      log(`${name} on ${engine.kind}, app profile: ${profileSummary(profDir, Number(values.top)).join("\n")}`);
    }
    if (perfFile) rmSync(dirname(perfFile), { recursive: true, force: true });
  }
}

const STATS_ENV = { METRICS: "on", METRICS_TOKEN: "bench-cache-stats-token" };

const metricsText = async (baseUrl) =>
  (await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${STATS_ENV.METRICS_TOKEN}` } })).text();

/** The read cache's hit and miss counters, read before and after each of the app's rounds. */
async function cacheCounters(baseUrl) {
  const text = await metricsText(baseUrl);
  const counter = (name) => Number(text.match(new RegExp(`^\\w*read_cache_${name} (\\S+)$`, "m"))?.[1] ?? Number.NaN);
  return { hits: counter("hits_total"), misses: counter("misses_total") };
}

/** A round's own misses: the builds its requests waited for, not the warm-up's. */
function roundMisses(before, after) {
  const misses = after.misses - before.misses;
  const lookups = misses + after.hits - before.hits;
  return `  read cache this round: ${misses} misses of ${lookups} lookups (${fmt((100 * misses) / lookups, 1)}%)`;
}

/** The read cache's figures from the app's /metrics (hits, misses, entries, bytes), and its memory in MB. */
async function cacheStats(baseUrl) {
  const text = await metricsText(baseUrl);
  const lines = text.split("\n").filter((l) => /^\w*read_cache_\w+ /.test(l));
  const mb = (name) => {
    const line = text.split("\n").find((l) => l.startsWith(`sta_${name} `));
    return line ? (Number(line.split(" ")[1]) / 2 ** 20).toFixed(0) : "?";
  };
  const memory = `rss ${mb("process_resident_memory_bytes")}, heap used ${mb("nodejs_heap_size_used_bytes")} of ${mb("nodejs_heap_size_total_bytes")}, external ${mb("nodejs_external_memory_bytes")}`;
  return `read cache: ${lines.map((l) => l.replace(/^\w*read_cache_/, "")).join(", ")}\nmemory (MB): ${memory}`;
}

/**
 * A world seeded earlier, copied: the run's writes (5% of the social traffic: comments, likes,
 * posts) land in the copy, so every run starts from the same world. Run on the seeded file itself,
 * each run grew its hot posts' comments and likes (10k → 30k comments after a dozen runs), and
 * later runs, and the later side of a before/after, read more rows.
 */
function seededEarlier(dir, worldName) {
  const callersFile = join(dir, `${worldName}.callers.json`);
  if (!existsSync(join(dir, `${worldName}.db`)) || !existsSync(callersFile)) return undefined;
  const callers = JSON.parse(readFileSync(callersFile, "utf8"));
  return { engine: seededCopy(dir, worldName), world: WORLDS[worldName], callers };
}

/** Another copy of a world seeded earlier (`seededEarlier` found it), as an engine of its own. */
function seededCopy(dir, worldName) {
  const { file: database, drop } = copyOfStore(join(dir, `${worldName}.db`), "sta-many-world-");
  return { kind: "sqlite", database, env: { SECRETS_KEY: SECRETS_KEY_FOR_REUSE }, drop };
}

function verdicts(t, a, ratio) {
  const v = [];
  if (t.minRatio) v.push(`${ratio >= t.minRatio ? "MET" : "MISSED"} ratio ≥ ${t.minRatio * 100}%`);
  if (t.minRps) v.push(`${a.rps >= t.minRps ? "MET" : "MISSED"} ≥ ${t.minRps} req/s`);
  if (t.maxP99Ms) v.push(`${a.p99 < t.maxP99Ms ? "MET" : "MISSED"} p99 < ${t.maxP99Ms} ms`);
  if (t.maxRssMb) v.push(`${a.peakRssMb < t.maxRssMb ? "MET" : "MISSED"} RSS < ${t.maxRssMb} MB`);
  return v.join("; ");
}

/** The app against the other build (--against) in one scenario: req/s, CPU per request, p99, RSS. */
function againstLine(name, kind, worldName, r) {
  const [a, o] = [r.app, r.against];
  return `${name.padEnd(20)}${kind.padEnd(10)}${worldName.padEnd(11)} req/s ${fmt(a.rps)} / ${fmt(o.rps)} (${fmt(a.rps / o.rps, 2)}x), CPU µs ${fmt(a.cpuUsPerRequest)} / ${fmt(o.cpuUsPerRequest)} (${fmt(a.cpuUsPerRequest / o.cpuUsPerRequest, 2)}x), p99 ms ${fmt(a.p99, 1)} / ${fmt(o.p99, 1)}, RSS MB ${fmt(a.peakRssMb)} / ${fmt(o.peakRssMb)}`;
}
const againstLines = [];

mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
const worlds = values.world.split(",");
const table = [];
let failed = false;
for (const worldName of worlds) {
  for (const kind of engines) {
    // --reuse DIR: a SQLite world seeded earlier (`bench:seed -- --world W --out DIR`), run on a copy.
    const kept = kind === "sqlite" && values.reuse ? seededEarlier(values.reuse, worldName) : undefined;
    const engine = kept?.engine ?? (await createEngine(kind));
    try {
      log(`\n## ${kind}: ${kept ? `reusing ${engine.database}` : `seeding the ${worldName} world`}`);
      const t0 = performance.now();
      const { world, callers } = kept ?? (await seedWorld(engine.database, worldName));
      const seedSeconds = (performance.now() - t0) / 1000;
      log(`ready in ${seedSeconds.toFixed(1)} s`);
      let first = true;
      for (const name of names)
        for (const connections of loads) {
          // A world reused from --reuse gives every run (scenario and load) a copy of its own: the
          // writes of one run (the capture's, the social writes, orders) would grow what the next
          // one reads. A world seeded here is seeded once, and its runs share it.
          const store = kept && !first ? seededCopy(values.reuse, worldName) : engine;
          first = false;
          log(
            `\n# ${name} on ${kind} (${worldName} world, ${connections} connections): ${SCENARIOS[name].description}`,
          );
          try {
            const opts = { duration, connections };
            const r = await runScenario(name, store, world, callers, opts);
            const ratio = r.app.rps / r.baseline.rps;
            const verdict = verdicts(SCENARIOS[name].targets, r.app, ratio);
            const line = { name, engine: kind, world: worldName, connections, ratio, ...r, verdict };
            table.push(line);
            if (r.app.non2xx > 0 || r.app.errors > 0) failed = true;
            if (r.against && (r.against.non2xx > 0 || r.against.errors > 0)) failed = true;
            log(
              `${name} ${kind}: app ${fmt(r.app.rps)} req/s p99 ${fmt(r.app.p99, 1)} ms RSS ${fmt(r.app.peakRssMb, 1)} MB; baseline ${fmt(r.baseline.rps)} req/s; ratio ${fmt(ratio * 100, 1)}%`,
            );
            if (r.against) againstLines.push(againstLine(name, kind, `${worldName}/${connections}`, r));
            writeFileSync(
              new URL(`./results/${name}-${kind}-${worldName}${atLoad(connections)}.json`, import.meta.url),
              `${JSON.stringify({ at: new Date().toISOString(), options: { ...opts, rounds, world }, seedSeconds, ...line }, null, 2)}\n`,
            );
          } finally {
            if (store !== engine) await store.drop();
          }
        }
    } finally {
      await engine.drop();
    }
  }
}

console.log(
  `\nmany-caller scenarios, ${loads.join(", ")} connections, ${rounds} rounds of ${duration}s (medians; CPU µs: the server's CPU time per request, steadier than req/s on a shared machine)`,
);
console.log(
  `${"scenario".padEnd(20)}${"engine".padEnd(10)}${"world".padEnd(9)}${"conns".padStart(6)}${"app req/s".padStart(10)}${"base req/s".padStart(11)}${"ratio".padStart(8)}${"p99 ms".padStart(8)}${"RSS MB".padStart(8)}${"CPU µs".padStart(8)}${"base µs".padStart(8)}${"failed".padStart(8)}  verdict`,
);
for (const l of table) {
  console.log(
    `${l.name.padEnd(20)}${l.engine.padEnd(10)}${l.world.padEnd(9)}${String(l.connections).padStart(6)}${fmt(l.app.rps).padStart(10)}${fmt(l.baseline.rps).padStart(11)}${`${fmt(l.ratio * 100, 1)}%`.padStart(8)}${fmt(l.app.p99, 1).padStart(8)}${fmt(l.app.peakRssMb, 0).padStart(8)}${fmt(l.app.cpuUsPerRequest).padStart(8)}${fmt(l.baseline.cpuUsPerRequest).padStart(8)}${String(l.app.non2xx + l.app.errors).padStart(8)}  ${l.verdict}`,
  );
}
// Scale (issue 19 item 6): the last world's figures against the first's, within 1.5x. The share
// of the baseline is compared (it cancels the machine's load drifting between the two worlds'
// runs), and p99.
if (worlds.length > 1) {
  const [first, last] = [worlds[0], worlds.at(-1)];
  console.log(`\nscale: ${last} world against ${first} world (target: within 1.5x)`);
  for (const l of table.filter((x) => x.world === last)) {
    const b = table.find(
      (x) => x.world === first && x.name === l.name && x.engine === l.engine && x.connections === l.connections,
    );
    if (!b) continue;
    const share = b.ratio / l.ratio;
    const p99 = l.app.p99 / b.app.p99;
    const ok = share <= 1.5 && p99 <= 1.5;
    console.log(
      `${l.name.padEnd(20)}${l.engine.padEnd(10)}${String(l.connections).padStart(4)} conns: throughput share ${fmt(b.ratio * 100, 1)}% -> ${fmt(l.ratio * 100, 1)}% (${fmt(share, 2)}x lower), p99 ${fmt(b.app.p99, 1)} -> ${fmt(l.app.p99, 1)} ms (${fmt(p99, 2)}x): ${ok ? "MET" : "MISSED"}`,
    );
  }
}
if (againstLines.length > 0) {
  console.log(`\nagainst ${values.against} (the other build, loaded in the same rounds; medians, app / other)`);
  for (const line of againstLines) console.log(line);
}
if (failed) console.log("a server answered non-2xx or failed requests during a run: those figures are not valid");
process.exit(failed ? 1 : 0);
