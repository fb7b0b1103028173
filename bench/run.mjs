#!/usr/bin/env node
// Benchmark harness: `npm run bench [-- scenario ...] [--duration S] [--rounds N] [--connections C]`.
// For each scenario it starts the real server and a plain Node server returning the same bytes, loads
// them in alternating rounds in the same run, and reports throughput, p99 latency and their ratio.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { capture, load, median, plainInserts, startApp, startBaseline } from "./lib.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    duration: { type: "string", default: "8" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
    help: { type: "boolean", default: false },
  },
});

const available = readdirSync(new URL("./scenarios/", import.meta.url))
  .filter((f) => f.endsWith(".mjs"))
  .map((f) => f.replace(/\.mjs$/, ""));

if (values.help) {
  console.log(
    `usage: npm run bench -- [scenario ...] [--duration S] [--rounds N] [--connections C]\nscenarios: ${available.join(", ")}`,
  );
  process.exit(0);
}

const chosen = positionals.length ? positionals : available;
const unknown = chosen.filter((s) => !available.includes(s));
if (unknown.length) {
  console.error(`unknown scenario(s): ${unknown.join(", ")}; available: ${available.join(", ")}`);
  process.exit(2);
}

const opts = { duration: Number(values.duration), connections: Number(values.connections) };
const rounds = Number(values.rounds);
const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : "n/a");
let failed = false;

mkdirSync(new URL("./results/", import.meta.url), { recursive: true });

for (const name of chosen) {
  const scenario = (await import(`./scenarios/${name}.mjs`)).default;
  console.log(`\n# ${scenario.name}: ${scenario.description}`);
  const app = await startApp(scenario.env ?? {});
  let baseline;
  try {
    const request = await scenario.prepare(app);
    const sample = await capture(app.baseUrl, request);
    if (sample.status >= 300)
      throw new Error(`the scenario's request answered ${sample.status}: ${Buffer.from(sample.body, "base64")}`);
    // `baselineEnv`: the baseline is the same server started with that environment (e.g. a
    // feature switched off), prepared the same way, instead of the plain server.
    // `baseline: "plain-inserts"`: the baseline is the same number of plain SQLite insert
    // transactions as the app's round completed (the storage's own commit rate), not a server.
    const plain = scenario.baseline === "plain-inserts";
    if (plain) baseline = { stop: async () => {} };
    else baseline = scenario.baselineEnv ? await startApp(scenario.baselineEnv) : await startBaseline(sample);
    const baselineRequest = plain ? undefined : scenario.baselineEnv ? await scenario.prepare(baseline) : request;
    process.stderr.write("warming up…\n");
    await load(app.baseUrl, request, { ...opts, duration: 2 });
    if (!plain) await load(baseline.baseUrl, baselineRequest, { ...opts, duration: 2 });

    const runs = { app: [], baseline: [] };
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? ["app", "baseline"] : ["baseline", "app"];
      for (const who of order) {
        process.stderr.write(`round ${i + 1}/${rounds}: ${who}…\n`);
        const target = who === "app" ? app : baseline;
        if (who === "baseline" && plain) {
          // The count of the app's latest round (round 1 runs the app first).
          runs.baseline.push(await plainInserts(runs.app.at(-1).ok));
          continue;
        }
        runs[who].push(
          await load(target.baseUrl, who === "app" ? request : baselineRequest, { ...opts, pid: target.pid }),
        );
      }
    }
    const summary = (rs) => ({
      rps: median(rs.map((r) => r.rps)),
      p99: median(rs.map((r) => r.p99)),
      non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
      errors: rs.reduce((a, r) => a + r.errors, 0),
      peakRssMb: Math.max(...rs.map((r) => r.peakRssMb)),
      cpuUsPerRequest: median(rs.map((r) => r.cpuUsPerRequest ?? Number.NaN)),
    });
    const a = summary(runs.app);
    const b = summary(runs.baseline);
    const ratio = a.rps / b.rps;
    console.log(
      `response: ${sample.size} bytes, ${opts.connections} connections, ${rounds} rounds of ${opts.duration}s`,
    );
    console.log("target     req/s (median)   p99 ms   non-2xx  errors  peak RSS MB");
    for (const [label, s] of [
      ["app", a],
      [plain ? "inserts" : "baseline", b],
    ]) {
      console.log(
        `${label.padEnd(10)} ${fmt(s.rps).padStart(14)} ${fmt(s.p99, 1).padStart(8)} ${String(s.non2xx).padStart(9)} ${String(s.errors).padStart(7)} ${fmt(s.peakRssMb, 1).padStart(12)}`,
      );
    }
    const p99Ratio = a.p99 / b.p99;
    console.log(
      `ratio app/baseline throughput: ${fmt(ratio * 100, 1)}%${Number.isFinite(p99Ratio) ? `   p99 ratio: ${fmt(p99Ratio, 2)}x` : ""}`,
    );
    const cpuRatio = a.cpuUsPerRequest / b.cpuUsPerRequest;
    if (Number.isFinite(cpuRatio)) {
      console.log(
        `server CPU per request: app ${fmt(a.cpuUsPerRequest, 1)} µs, baseline ${fmt(b.cpuUsPerRequest, 1)} µs, ratio ${fmt(cpuRatio, 3)}x`,
      );
    }
    const t = scenario.targets ?? {};
    const verdicts = [];
    if (t.minRatio) verdicts.push(`${ratio >= t.minRatio ? "MET" : "MISSED"} throughput target ≥ ${t.minRatio * 100}%`);
    if (t.minRps) verdicts.push(`${a.rps >= t.minRps ? "MET" : "MISSED"} throughput target ≥ ${t.minRps} req/s`);
    if (t.maxRssMb) verdicts.push(`${a.peakRssMb <= t.maxRssMb ? "MET" : "MISSED"} memory target < ${t.maxRssMb} MB`);
    if (verdicts.length) console.log(verdicts.join("; "));
    if (a.non2xx > 0 || a.errors > 0) {
      console.log("the app answered non-2xx or failed requests during the run: the figures are not valid");
      failed = true;
    }
    writeFileSync(
      new URL(`./results/${scenario.name}.json`, import.meta.url),
      `${JSON.stringify({ scenario: scenario.name, at: new Date().toISOString(), options: { ...opts, rounds }, app: a, baseline: b, ratio, runs }, null, 2)}\n`,
    );
  } finally {
    await baseline?.stop();
    await app.stop();
  }
}
process.exit(failed ? 1 : 0);
