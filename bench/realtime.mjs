#!/usr/bin/env node
// The real-time channel under many subscribers (issue 13 item 8, decisions 0117 and 0159):
//   npm run build && node bench/realtime.mjs [--sockets 1000] [--topics 50] [--duration 10] [--rounds 2]
//                                            [--users N] [--tick-ms 100] [--warmup 2] [--json]
//                                            [--profile [--top N]] [--app-env NAME=VALUE …]
//                                            [--baseline-frames bytes|string] [--app-main PATH]
// Starts the real server (`serve`, MARKET_TICK_MS=--tick-ms) and a bare `ws` broadcast server
// (bench/realtime-baseline.mjs) pushing frames of the same shape and size at the same rate. In
// alternating rounds, one process of `ws` clients opens --sockets sockets to one of them,
// authenticates socket i as user i % --users (default: a user and key pair per socket, made by
// bench/realtime-users.mjs), subscribes each to --topics `instrument:<id>` topics (socket i takes
// the catalog's instruments i, i+1, …, wrapping, so that every instrument is covered), lets it tick
// --warmup seconds, then for --duration seconds counts the messages delivered, the tick-to-client
// latency of every frame (receive time minus the `Date` the engine stamped the tick with: same
// machine, same clock) and the server's peak RSS and CPU. Reports the app/baseline ratio of
// messages per second and the issue's targets, MET or MISSED. --app-main runs another build of the
// app (e.g. a copy of an older dist/, for a before/after in the same session).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import WebSocket from "ws";
import { CATALOG } from "../dist/modules/market/catalog.js";
import { cpuSeconds, median, profileSummary, rssMb, startApp } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    sockets: { type: "string", default: "1000" },
    topics: { type: "string", default: "50" },
    duration: { type: "string", default: "10" },
    rounds: { type: "string", default: "2" },
    warmup: { type: "string", default: "2" },
    "tick-ms": { type: "string", default: "100" },
    json: { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
    "app-env": { type: "string", multiple: true, default: [] },
    users: { type: "string" },
    "app-main": { type: "string" },
    "baseline-frames": { type: "string", default: "bytes" },
    top: { type: "string", default: "25" },
  },
});
const SOCKETS = Number(values.sockets);
const TOPICS = Number(values.topics);
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
const WARMUP = Number(values.warmup);
const TICK_MS = Number(values["tick-ms"]);
const TARGETS = { minRatio: 0.5, maxP99Ms: 50, maxRssMb: 300 };
// Many users: by default every socket is a user of its own, with its own key pair.
const USERS = Math.min(SOCKETS, Number(values.users ?? SOCKETS));
const BASELINE_FRAMES = values["baseline-frames"];
if (!["bytes", "string"].includes(BASELINE_FRAMES)) throw new Error("--baseline-frames is bytes or string");

const ids = CATALOG.map((e) => e.instrumentId);
if (TOPICS > ids.length) throw new Error(`--topics at most ${ids.length}: the catalog's instruments`);
const topicsOf = (i) => Array.from({ length: TOPICS }, (_, j) => `instrument:${ids[(i + j) % ids.length]}`);
const expectedPerSecond = (SOCKETS * TOPICS * 1000) / TICK_MS;

const log = (s) => process.stderr.write(`${s}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// The servers.

async function startBaseline() {
  const child = spawn(process.execPath, [fileURLToPath(new URL("./realtime-baseline.mjs", import.meta.url))], {
    env: { ...process.env, TICK_MS: String(TICK_MS), FRAMES: BASELINE_FRAMES },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
      const m = /"port":(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

/** Makes `count` users with a key pair each in the app's store (as the CLI would, in one process). */
async function makeUsers(target, count) {
  const child = spawn(
    process.execPath,
    [
      fileURLToPath(new URL("./realtime-users.mjs", import.meta.url)),
      "--database",
      join(target.dir, "bench.db"),
      "--count",
      String(count),
    ],
    { env: { ...process.env, LOG_LEVEL: "warn" }, stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (c) => (out += c));
  const code = await new Promise((r) => child.once("exit", r));
  if (code !== 0) throw new Error(`realtime-users exited with ${code}`);
  return JSON.parse(out);
}

// ---------------------------------------------------------------------------------------------
// The clients: one process, `ws` sockets; frames are counted without parsing them.

const TOPIC_MARK = Buffer.from('"topic":"');
// `content` is a JSON string inside the frame: its quotes are escaped.
const DATE_MARK = Buffer.from('Date\\":\\"');
const ISO_LENGTH = 24; // 2026-11-24T00:28:18.123Z
/** One frame in SAMPLE_EVERY is parsed fully (twice, as a client would) to check the counting. */
const SAMPLE_EVERY = 200;

function newStats() {
  return { messages: 0, frames: 0, bytes: 0, other: 0, latency: new Uint32Array(60_001), checked: 0, mismatches: 0 };
}
let stats = newStats();
let counting = false;

function countMessages(buf) {
  let n = 0;
  let at = buf.indexOf(TOPIC_MARK);
  while (at >= 0) {
    n++;
    at = buf.indexOf(TOPIC_MARK, at + 120); // a message is longer than this
  }
  return n;
}

function onFrame(buf, now) {
  const n = countMessages(buf);
  if (n === 0) {
    stats.other++;
    return;
  }
  stats.frames++;
  stats.messages += n;
  stats.bytes += buf.length;
  // Every message of a frame carries the same tick's Date: one latency per message.
  const at = buf.indexOf(DATE_MARK);
  if (at >= 0) {
    const produced = Date.parse(buf.toString("latin1", at + DATE_MARK.length, at + DATE_MARK.length + ISO_LENGTH));
    const ms = Math.min(60_000, Math.max(0, Math.round(now - produced)));
    stats.latency[ms] += n;
  }
  if (stats.frames % SAMPLE_EVERY === 0) {
    const frame = JSON.parse(buf.toString());
    const contents = frame.messages.map((m) => JSON.parse(m.content));
    stats.checked++;
    if (
      frame.messages.length !== n ||
      !frame.messages.every((m) => m.type === "Trading.Instrument.Rate") ||
      !contents.every((c) => typeof c.Date === "string" && typeof c.PriceRateID === "string")
    )
      stats.mismatches++;
  }
}

function percentile(hist, q) {
  let total = 0;
  for (const c of hist) total += c;
  if (total === 0) return Number.NaN;
  let seen = 0;
  for (let ms = 0; ms < hist.length; ms++) {
    seen += hist[ms];
    if (seen >= q * total) return ms;
  }
  return hist.length - 1;
}

/** Opens one socket, authenticates it, subscribes it; resolves on the Subscribe reply. */
function openSocket(url, i, key) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, skipUTF8Validation: true });
    let stage = "connect";
    const fail = (why) => {
      ws.terminate();
      reject(new Error(`socket ${i}: ${why}`));
    };
    ws.on("error", (e) => stage !== "ready" && fail(e.message));
    ws.on("open", () => {
      stage = "auth";
      ws.send(JSON.stringify({ id: `a${i}`, operation: "Authenticate", data: key }));
    });
    ws.on("message", (data, isBinary) => {
      if (stage === "ready") {
        if (counting && !isBinary) onFrame(data, Date.now());
        return;
      }
      if (isBinary) return;
      const reply = JSON.parse(data.toString());
      if (reply.success !== true) return fail(`${reply.operation}: ${reply.errorCode} ${reply.errorMessage}`);
      if (stage === "auth") {
        stage = "subscribe";
        ws.send(
          JSON.stringify({ id: `s${i}`, operation: "Subscribe", data: { topics: topicsOf(i), snapshot: false } }),
        );
      } else {
        stage = "ready";
        resolve(ws);
      }
    });
  });
}

async function openAll(url, keys) {
  const sockets = [];
  const BATCH = 100;
  for (let i = 0; i < SOCKETS; i += BATCH) {
    const batch = [];
    for (let k = i; k < Math.min(SOCKETS, i + BATCH); k++) batch.push(openSocket(url, k, keys[k % keys.length]));
    sockets.push(...(await Promise.all(batch)));
  }
  return sockets;
}

async function closeAll(sockets) {
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise((r) => {
          if (ws.readyState === WebSocket.CLOSED) return r();
          ws.once("close", r);
          ws.close(1000);
          setTimeout(() => {
            ws.terminate();
            r();
          }, 3000).unref();
        }),
    ),
  );
}

/** One round against one server: connect, warm up, measure, disconnect. */
async function round(target, keys) {
  let peak = rssMb(target.pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(target.pid))), 200);
  try {
    const t0 = performance.now();
    const sockets = await openAll(target.url, keys);
    const connectSeconds = (performance.now() - t0) / 1000;
    const connectedRssMb = rssMb(target.pid);
    await sleep(WARMUP * 1000);
    stats = newStats();
    counting = true;
    const cpu0 = cpuSeconds(target.pid);
    const mine0 = process.cpuUsage();
    const start = performance.now();
    await sleep(DURATION * 1000);
    counting = false;
    const seconds = (performance.now() - start) / 1000;
    const serverCpu = cpuSeconds(target.pid) - cpu0;
    const mine = process.cpuUsage(mine0);
    const s = stats;
    const closed = sockets.filter((ws) => ws.readyState !== WebSocket.OPEN).length;
    const endRssMb = rssMb(target.pid);
    await closeAll(sockets);
    return {
      messagesPerSecond: s.messages / seconds,
      deliveredShare: s.messages / seconds / expectedPerSecond,
      framesPerSecond: s.frames / seconds,
      messagesPerFrame: s.messages / s.frames,
      bytesPerMessage: s.bytes / s.messages,
      p50Ms: percentile(s.latency, 0.5),
      p99Ms: percentile(s.latency, 0.99),
      maxMs: percentile(s.latency, 1),
      serverCpuShare: serverCpu / seconds,
      serverCpuUsPerMessage: (serverCpu * 1e6) / s.messages,
      clientCpuShare: (mine.user + mine.system) / 1e6 / seconds,
      peakRssMb: peak,
      connectSeconds,
      connectedRssMb,
      endRssMb,
      socketsClosedDuringRun: closed,
      otherFrames: s.other,
      sampledFrames: s.checked,
      sampleMismatches: s.mismatches,
    };
  } finally {
    clearInterval(sampler);
  }
}

// ---------------------------------------------------------------------------------------------

const env = {
  MARKET_TICK_MS: String(TICK_MS),
  // Socket i authenticates as user i % --users: the per-user cap (10 by default) is raised only
  // when a user holds more sockets than that. Nothing else changes from the defaults.
  ...(Math.ceil(SOCKETS / USERS) > 10 ? { REALTIME_MAX_CONNECTIONS_PER_USER: String(Math.ceil(SOCKETS / USERS)) } : {}),
  // Sockets may all be connecting before any has authenticated.
  REALTIME_MAX_UNAUTHENTICATED: String(Math.max(1000, SOCKETS)),
  // --app-env NAME=VALUE (repeatable): more server settings for the run, e.g. REALTIME_BUFFER_BYTES.
  ...Object.fromEntries(values["app-env"].map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)])),
};
log(
  `starting the app (${Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ")}) and the bare ws server…`,
);
// --profile: the app runs under --cpu-prof (as bench/profile.mjs does); its busiest functions are
// printed at the end (connection setup included).
const profDir = values.profile ? mkdtempSync(join(tmpdir(), "sta-profile-")) : undefined;
const app = await startApp(
  env,
  profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : [],
  undefined,
  ...(values["app-main"] ? [values["app-main"]] : []),
);
const baseline = await startBaseline();
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
let exitCode = 0;
try {
  // --users users, each with a key pair reading market data (bench/realtime-users.mjs).
  const { keys } = await makeUsers(app, USERS);
  const targets = {
    app: { url: `${app.baseUrl.replace(/^http/, "ws")}/ws`, pid: app.pid },
    baseline: { url: baseline.url, pid: baseline.pid },
  };
  // Resident memory before any socket: what the sockets add is the peak minus this.
  await sleep(1000);
  const idleRssMb = { app: rssMb(app.pid), baseline: rssMb(baseline.pid) };
  const runs = { app: [], baseline: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const who of r % 2 === 0 ? ["app", "baseline"] : ["baseline", "app"]) {
      log(`round ${r + 1}/${ROUNDS}: ${who} (${SOCKETS} sockets × ${TOPICS} topics, ${WARMUP}s + ${DURATION}s)…`);
      const result = await round(targets[who], keys);
      log(
        `  ${fmt(result.messagesPerSecond)} msg/s, p99 ${result.p99Ms} ms, RSS ${fmt(result.connectedRssMb)} MB connected, ${fmt(result.endRssMb)} at the end, ${fmt(result.peakRssMb)} peak, server CPU ${fmt(result.serverCpuShare * 100)}%, client CPU ${fmt(result.clientCpuShare * 100)}%`,
      );
      runs[who].push(result);
    }
  }
  const summary = (rs) => ({
    messagesPerSecond: median(rs.map((r) => r.messagesPerSecond)),
    deliveredShare: median(rs.map((r) => r.deliveredShare)),
    messagesPerFrame: median(rs.map((r) => r.messagesPerFrame)),
    bytesPerMessage: median(rs.map((r) => r.bytesPerMessage)),
    p50Ms: median(rs.map((r) => r.p50Ms)),
    p99Ms: median(rs.map((r) => r.p99Ms)),
    maxMs: Math.max(...rs.map((r) => r.maxMs)),
    peakRssMb: Math.max(...rs.map((r) => r.peakRssMb)),
    serverCpuShare: median(rs.map((r) => r.serverCpuShare)),
    serverCpuUsPerMessage: median(rs.map((r) => r.serverCpuUsPerMessage)),
    clientCpuShare: median(rs.map((r) => r.clientCpuShare)),
    socketsClosedDuringRun: rs.reduce((a, r) => a + r.socketsClosedDuringRun, 0),
    sampleMismatches: rs.reduce((a, r) => a + r.sampleMismatches, 0),
  });
  const a = { ...summary(runs.app), idleRssMb: idleRssMb.app };
  const b = { ...summary(runs.baseline), idleRssMb: idleRssMb.baseline };
  const ratio = a.messagesPerSecond / b.messagesPerSecond;
  const verdict = {
    throughput: ratio >= TARGETS.minRatio,
    p99: a.p99Ms < TARGETS.maxP99Ms,
    rss: a.peakRssMb < TARGETS.maxRssMb,
  };
  console.log(
    `\n# realtime: ${SOCKETS} sockets (${USERS} users) × ${TOPICS} instrument topics, ticks every ${TICK_MS} ms (${fmt(expectedPerSecond)} messages/s due), ${ROUNDS} rounds of ${DURATION}s; baseline frames: ${BASELINE_FRAMES}`,
  );
  console.log(
    "target     msg/s (median)  of due  msg/frame  B/msg  p50 ms  p99 ms  max ms  idle/peak RSS MB  server CPU  µs CPU/msg  client CPU",
  );
  for (const [label, s] of [
    ["app", a],
    ["baseline", b],
  ]) {
    console.log(
      `${label.padEnd(10)} ${fmt(s.messagesPerSecond).padStart(14)} ${`${fmt(s.deliveredShare * 100)}%`.padStart(7)} ${fmt(s.messagesPerFrame, 1).padStart(10)} ${fmt(s.bytesPerMessage).padStart(6)} ${fmt(s.p50Ms).padStart(7)} ${fmt(s.p99Ms).padStart(7)} ${fmt(s.maxMs).padStart(7)} ${`${fmt(s.idleRssMb)}/${fmt(s.peakRssMb)}`.padStart(16)} ${`${fmt(s.serverCpuShare * 100)}%`.padStart(11)} ${fmt(s.serverCpuUsPerMessage, 2).padStart(11)} ${`${fmt(s.clientCpuShare * 100)}%`.padStart(11)}`,
    );
  }
  console.log(
    `ratio app/baseline delivered: ${fmt(ratio * 100, 1)}%   p99 ratio: ${fmt(a.p99Ms / b.p99Ms, 2)}x   server CPU per message ratio: ${fmt(a.serverCpuUsPerMessage / b.serverCpuUsPerMessage, 2)}x`,
  );
  console.log(
    [
      `${verdict.throughput ? "MET" : "MISSED"} delivered ≥ ${TARGETS.minRatio * 100}% of the bare server`,
      `${verdict.p99 ? "MET" : "MISSED"} p99 tick-to-client < ${TARGETS.maxP99Ms} ms`,
      `${verdict.rss ? "MET" : "MISSED"} server RSS < ${TARGETS.maxRssMb} MB`,
    ].join("; "),
  );
  if (a.socketsClosedDuringRun > 0 || a.sampleMismatches > 0 || b.sampleMismatches > 0) {
    console.log(
      `warning: ${a.socketsClosedDuringRun} app sockets closed during the run, ${a.sampleMismatches + b.sampleMismatches} sampled frames disagreed with the count`,
    );
    exitCode = 1;
  }
  const report = {
    scenario: "realtime",
    at: new Date().toISOString(),
    options: {
      sockets: SOCKETS,
      users: USERS,
      topics: TOPICS,
      duration: DURATION,
      rounds: ROUNDS,
      warmup: WARMUP,
      tickMs: TICK_MS,
      baselineFrames: BASELINE_FRAMES,
    },
    env,
    expectedPerSecond,
    app: a,
    baseline: b,
    ratio,
    targets: TARGETS,
    verdict,
    runs,
  };
  mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
  writeFileSync(
    new URL(`./results/realtime-${SOCKETS}x${TOPICS}.json`, import.meta.url),
    `${JSON.stringify(report, null, 2)}\n`,
  );
  if (values.json) console.log(JSON.stringify(report));
} finally {
  await baseline.stop();
  await app.stop();
}
if (profDir) console.log(`\napp profile: ${profileSummary(profDir, Number(values.top)).join("\n")}`);
process.exit(exitCode);
