// Shared pieces of the benchmark harness: start the real server and the baseline as child
// processes, drive them with autocannon, sample the server's resident memory.
import { spawn } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
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

/**
 * Starts `social-trading-api serve` on a fresh SQLite file with the given extra environment (and
 * Node options, e.g. `--cpu-prof`), or on `database` (a SQLite file or a postgres:// URL already
 * seeded, which stop() leaves in place); `main` runs another build (e.g. a copy of an older `dist/`).
 */
export async function startApp(env = {}, nodeArgs = [], database = undefined, main = join(ROOT, "dist/main.js")) {
  const dir = mkdtempSync(join(tmpdir(), "sta-bench-"));
  const child = spawn(
    process.execPath,
    [...nodeArgs, main, "serve", "--port", "0", "--database", database ?? join(dir, "bench.db"), "--json"],
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

/** Node arguments that preload `name`, a module of bench/ (profile-on-signal.mjs, sql-timing.mjs, …), into a server. */
export const preload = (name) => ["--import", fileURLToPath(new URL(name, import.meta.url))];

/**
 * Sends `signal` to the server `pid`, whose preloaded module writes `file` on it (the profile of
 * profile-on-signal.mjs, the snapshot of heap-on-signal.mjs), and waits until the file is there.
 */
export async function signalledFile(pid, signal, file) {
  process.kill(pid, signal);
  for (let waited = 0; !existsSync(file); waited += 100) {
    if (waited > 120_000) throw new Error(`no ${file} 2 minutes after ${signal}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return file;
}

/** Starts the baseline server returning exactly `response` (after `burnUs` µs of CPU per request: bench/cpu-budget.mjs). */
export async function startBaseline(response, burnUs = 0) {
  return startResponder("bench/baseline-server.mjs", response, { BASELINE_BURN_US: String(burnUs) }, "baseline");
}

/**
 * Starts `script` (a plain server run as a child process, printing `{"port": …}` once listening)
 * with `response` ({ status, contentType, body in base64 }) in the file BASELINE_RESPONSE_FILE names,
 * and `env` beside.
 */
export async function startResponder(script, response, env = {}, name = script) {
  // In a file: a large answer (a feed page) does not fit in an environment variable.
  const dir = mkdtempSync(join(tmpdir(), "sta-baseline-"));
  const file = join(dir, "response.json");
  writeFileSync(file, JSON.stringify(response));
  const child = spawn(process.execPath, [join(ROOT, script)], {
    env: { ...process.env, ...env, BASELINE_RESPONSE_FILE: file },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const { port } = await firstJson(child, name);
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

/**
 * A scenario's request may carry `setupRequest(req) → req` (autocannon's hook, run before every
 * request), e.g. to send a fresh `x-request-id` each time; this applies it once, for one-off calls.
 */
const once = (request) =>
  request.setupRequest
    ? {
        ...request,
        ...request.setupRequest({
          method: request.method,
          path: request.path,
          headers: { ...request.headers },
          body: request.body,
        }),
      }
    : request;

/** One request as the app answers it, to give the baseline the same bytes. */
export async function capture(baseUrl, scenarioRequest) {
  const request = once(scenarioRequest);
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
/**
 * CPU seconds (user + system) a process has used, from /proc (clock ticks of 1/100 s, Linux's
 * USER_HZ); NaN where there is no /proc.
 */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) in parentheses; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

export async function load(baseUrl, request, { duration, connections, pid }) {
  let peak = 0;
  const cpuBefore = pid ? cpuSeconds(pid) : Number.NaN;
  const sampler = pid ? setInterval(() => (peak = Math.max(peak, rssMb(pid))), 250) : undefined;
  try {
    const result = await autocannon({
      url: baseUrl + request.path,
      method: request.method ?? "GET",
      headers: request.headers,
      body: request.body,
      connections,
      duration,
      // Per-request setup (a fresh x-request-id for each order): autocannon's `requests` form.
      ...(request.setupRequest
        ? {
            url: baseUrl,
            requests: [
              {
                method: request.method ?? "GET",
                path: request.path,
                headers: request.headers,
                body: request.body,
                setupRequest: request.setupRequest,
              },
            ],
          }
        : {}),
    });
    const ok = result["2xx"];
    // The server's CPU per request: steadier than throughput when other work shares the machine.
    const cpuUsPerRequest = ((cpuSeconds(pid) - cpuBefore) * 1e6) / result.requests.total;
    return {
      cpuUsPerRequest,
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

/**
 * The storage's own commit rate, for scenarios whose baseline is "the same number of plain
 * inserts" (`baseline: "plain-inserts"`): `count` single-row insert transactions on a fresh SQLite
 * file with the server's settings (WAL, synchronous NORMAL), one at a time, in this process.
 */
export async function plainInserts(count) {
  const { default: Database } = await import("better-sqlite3");
  const dir = mkdtempSync(join(tmpdir(), "sta-bench-inserts-"));
  try {
    const db = new Database(join(dir, "plain.db"));
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec(
      "create table t (id integer primary key autoincrement, user_id text not null, amount_cents integer not null, rate real not null, at text not null)",
    );
    const insert = db.prepare("insert into t (user_id, amount_cents, rate, at) values (?, ?, ?, ?)");
    const one = db.transaction((i) => insert.run("u", 1000, 190.5 + i, new Date().toISOString()));
    const t = performance.now();
    for (let i = 0; i < count; i++) one(i);
    const seconds = (performance.now() - t) / 1000;
    db.close();
    return { rps: count / seconds, p99: Number.NaN, non2xx: 0, errors: 0, ok: count, peakRssMb: rssMb(process.pid) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The functions with the most self time in the (one) .cpuprofile a `--cpu-prof-dir` holds, as
 * lines to print: share of the busy CPU, function, file and line; then the profile's path (open
 * it in Chrome DevTools for the whole picture). `busy` is the share of the profile not idle.
 */
export function profileSummary(dir, top) {
  const file = join(
    dir,
    readdirSync(dir).find((f) => f.endsWith(".cpuprofile")),
  );
  const { nodes, samples, timeDeltas } = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  for (let i = 0; i < samples.length; i++) {
    const { functionName, url, lineNumber } = byId.get(samples[i]).callFrame;
    const key = `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(dist|src)\//, "$1/")}:${lineNumber + 1}`;
    const dt = timeDeltas[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
  const idle = [...self].filter(([k]) => k.startsWith("(idle)")).reduce((a, [, v]) => a + v, 0);
  const lines = [`busy ${(((total - idle) / total) * 100).toFixed(0)}% of the profile`, "self %busy  function"];
  for (const [k, v] of [...self]
    .filter(([k]) => !k.startsWith("(idle)"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top))
    lines.push(`${((v / (total - idle)) * 100).toFixed(1).padStart(10)}  ${k}`);
  lines.push(`profile: ${file}`);
  return lines;
}

/**
 * A copy of the SQLite store `seeded` (with its -wal and -shm when present) in a fresh temp folder
 * named after `prefix`, so a run never changes the seeded one; `drop()` removes the copy.
 */
function syncFile(file) {
  const fd = openSync(file, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function copyOfStore(seeded, prefix, name = basename(seeded)) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const file = join(dir, name);
  copyFileSync(seeded, file);
  for (const suffix of ["-wal", "-shm"]) if (existsSync(seeded + suffix)) copyFileSync(seeded + suffix, file + suffix);
  // Written out now, before the server starts: a 5 GB copy's write-back otherwise ran for minutes
  // beside the measured rounds (decision 0212).
  for (const suffix of ["", "-wal"]) if (existsSync(file + suffix)) syncFile(file + suffix);
  return { file, drop: () => rmSync(dir, { recursive: true, force: true }) };
}
