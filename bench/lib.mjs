// Shared pieces of the benchmark harness: start the real server and the baseline as child
// processes, drive them with autocannon, sample the server's resident memory.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Waits for the first JSON document a child prints on stdout. */
function firstJson(child, name) {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr.on("data", (c) => (err += c));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const start = out.indexOf("{");
      const end = out.lastIndexOf("}");
      if (start < 0 || end < start) return;
      try {
        resolve(JSON.parse(out.slice(start, end + 1)));
      } catch {
        // not complete yet
      }
    });
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}: ${err}`)));
  });
}

/** Starts `social-trading-api serve` on a fresh SQLite file with the given extra environment. */
export async function startApp(env = {}) {
  const dir = mkdtempSync(join(tmpdir(), "sta-bench-"));
  const child = spawn(
    process.execPath,
    [join(ROOT, "dist/main.js"), "serve", "--port", "0", "--database", join(dir, "bench.db"), "--json"],
    { env: { ...process.env, LOG_LEVEL: "warn", ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const banner = await firstJson(child, "serve");
  return {
    baseUrl: banner.baseUrl,
    demo: banner.demo,
    pid: child.pid,
    dir,
    cli: (args) => runCli([...args, "--database", join(dir, "bench.db"), "--json"], env),
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function runCli(args, env) {
  const child = spawn(process.execPath, [join(ROOT, "dist/main.js"), ...args], {
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return firstJson(child, `cli ${args[0]}`);
}

/** Starts the baseline server returning exactly `response`. */
export async function startBaseline(response) {
  const child = spawn(process.execPath, [join(ROOT, "bench/baseline-server.mjs")], {
    env: { ...process.env, BASELINE_RESPONSE: JSON.stringify(response) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const { port } = await firstJson(child, "baseline");
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

/** One request as the app answers it, to give the baseline the same bytes. */
export async function capture(baseUrl, request) {
  const res = await fetch(baseUrl + request.path, {
    method: request.method ?? "GET",
    headers: request.headers,
    body: request.body,
  });
  const body = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    contentType: res.headers.get("content-type") ?? "application/json",
    body: body.toString("base64"),
    size: body.length,
  };
}

export function rssMb(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("VmRSS:"));
    return line ? Number(line.replace(/\D+/g, "")) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Runs autocannon against one target while sampling a process's memory. */
export async function load(baseUrl, request, { duration, connections, pid }) {
  let peak = 0;
  const sampler = pid ? setInterval(() => (peak = Math.max(peak, rssMb(pid))), 250) : undefined;
  try {
    const result = await autocannon({
      url: baseUrl + request.path,
      method: request.method ?? "GET",
      headers: request.headers,
      body: request.body,
      connections,
      duration,
    });
    const ok = result["2xx"];
    return {
      rps: result.requests.average,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      ok,
      peakRssMb: peak,
    };
  } finally {
    if (sampler) clearInterval(sampler);
  }
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
