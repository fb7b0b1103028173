// The per-request cost of METRICS=on (docs/decisions/0106), in one process, in alternating rounds:
// 1. the recorder's own work per answer (plain arithmetic on its route and status's series), in
//    ns, beside what cached prom-client children (one counter inc, one histogram observe) cost;
// 2. GET /health through app.inject on an app with METRICS=on and one with METRICS=off, in CPU µs
//    per request (CPU time is the steadier figure on a shared machine).
// Usage: npm run build && node bench/micro-metrics.mjs [requests] [rounds]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../dist/app.js";
import { loadConfig } from "../dist/config.js";
import { Metrics } from "../dist/infra/metrics.js";
import { closeDeps, createDeps } from "../dist/runtime.js";

const requests = Number(process.argv[2] ?? 20000);
const rounds = Number(process.argv[3] ?? 5);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// 1. The recorder's work: its series of a route and status (kept per route), then plain arithmetic.
const metrics = new Metrics(false);
const known = new Map();
const record = (status, seconds) => {
  let series = known.get(status);
  if (!series) {
    series = metrics.httpSeries("GET", "/api/v1/posts/:postId", status);
    known.set(status, series);
  }
  series.record(seconds);
};
// prom-client's cached children doing the same (the first design), for comparison.
const counter = metrics.rateLimitRejections.labels("default");
const lag = metrics.marketTickLag;
const promClient = (seconds) => {
  counter.inc();
  lag.observe(seconds);
};
const perAnswer = [];
const perAnswerPromClient = [];
for (let r = 0; r < rounds; r++) {
  const n = 1_000_000;
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) record(200, 0.0004 + (i % 7) * 0.001);
  perAnswer.push(Number(process.hrtime.bigint() - t0) / n);
  t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) promClient(0.0004 + (i % 7) * 0.001);
  perAnswerPromClient.push(Number(process.hrtime.bigint() - t0) / n);
}

// 2. Whole requests, on and off.
const dir = mkdtempSync(join(tmpdir(), "sta-micro-metrics-"));
const make = async (name, env) => {
  const config = loadConfig({ LOG_LEVEL: "silent", ...env }, { database: join(dir, `${name}.db`) });
  const deps = await createDeps(config);
  return { deps, app: await buildApp(config, deps) };
};
const on = await make("on", { METRICS: "on", METRICS_TOKEN: "micro-metrics-token-0123456789" });
const off = await make("off", { METRICS: "off" });
const cpuPerRequest = async (app) => {
  const t0 = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    const res = await app.inject({ method: "GET", url: "/health" });
    if (res.statusCode !== 200) throw new Error(`GET /health answered ${res.statusCode}`);
  }
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / requests;
};
await cpuPerRequest(on.app);
await cpuPerRequest(off.app);
const runs = { on: [], off: [] };
for (let r = 0; r < rounds; r++) {
  for (const who of r % 2 === 0 ? ["on", "off"] : ["off", "on"]) {
    runs[who].push(await cpuPerRequest(who === "on" ? on.app : off.app));
  }
}
for (const x of [on, off]) {
  await x.app.close();
  await closeDeps(x.deps);
}
rmSync(dir, { recursive: true, force: true });

const onUs = median(runs.on);
const offUs = median(runs.off);
console.log(
  JSON.stringify(
    {
      recorderNsPerAnswer: Number(median(perAnswer).toFixed(0)),
      promClientChildrenNsPerAnswer: Number(median(perAnswerPromClient).toFixed(0)),
      injectCpuUsPerRequest: { on: Number(onUs.toFixed(2)), off: Number(offUs.toFixed(2)) },
      onOverOff: Number((onUs / offUs).toFixed(3)),
      requests,
      rounds,
    },
    null,
    2,
  ),
);
