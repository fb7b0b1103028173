// Concurrent 5 MB image uploads (issue 17, item 6): `POST /api/v1/attachments` on the real server
// against a plain Node HTTP server that streams the same request bodies to disk (hashing them, as
// the media store does) and answers the app's bytes, in the same run, alternating rounds, at several
// concurrencies. Reports uploads per second and MB/s, p99 latency, and each server's resident memory
// idle and at its peak during the round: memory must not grow with the number of concurrent uploads
// beyond the bound decision 0122 states (each upload holds its stream buffers, never its file).
// Usage: npm run build && node bench/uploads.mjs [--concurrency 1,8,32] [--duration 5] [--rounds 2]
//          [--megabytes 5]
import { spawn } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { crc32, deflateSync } from "node:zlib";
import { median, rssMb, startApp } from "./lib.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};

if (process.argv.includes("--baseline")) await baselineServer();
else await main();

/** The plain server: each body streamed to a file of its own while hashed, then the app's answer. */
async function baselineServer() {
  const answer = Buffer.from(process.env.UPLOAD_ANSWER ?? "{}");
  const dir = mkdtempSync(join(tmpdir(), "sta-bench-upload-base-"));
  const server = createServer(async (req, res) => {
    const file = join(dir, randomUUID());
    const hash = createHash("sha256");
    try {
      await pipeline(
        req,
        async function* (source) {
          for await (const chunk of source) {
            hash.update(chunk);
            yield chunk;
          }
        },
        createWriteStream(file, { flush: true }),
      );
      hash.digest();
      res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": answer.length });
      res.end(answer);
    } catch {
      res.destroy();
    } finally {
      rmSync(file, { force: true });
    }
  });
  server.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
  process.on("SIGTERM", () => {
    server.close(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

/** A real PNG of about `bytes` bytes: a grey gradient, its pixels stored uncompressed. */
function pngOf(bytes) {
  const width = 1024;
  const height = Math.max(1, Math.floor(bytes / (width * 3 + 1)));
  const raw = Buffer.alloc(height * (width * 3 + 1));
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width * 3; x++) raw[row + 1 + x] = (x + y) & 0xff;
  }
  const chunk = (type, data) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, "latin1");
    data.copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 0 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function multipart(file) {
  const boundary = `----stabench${randomUUID()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="chart.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  return {
    body: Buffer.concat([head, file, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

function post(agent, url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { ...headers, "content-length": body.length, "x-request-id": randomUUID() } },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** `concurrency` clients uploading back to back for `seconds`; the server's memory sampled meanwhile. */
async function round(target, concurrency, seconds, upload) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies = [];
  let failures = 0;
  let peak = rssMb(target.pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(target.pid));
  }, 25);
  const end = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const t = performance.now();
        const res = await post(agent, target.url, upload.headers, upload.body);
        if (res.status !== 200) {
          failures += 1;
          if (failures === 1)
            console.error(`  ${target.name}: HTTP ${res.status} ${res.body.toString().slice(0, 200)}`);
        } else latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  clearInterval(sampler);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    uploadsPerSecond: latencies.length / elapsed,
    megabytesPerSecond: (latencies.length * upload.body.length) / 1024 / 1024 / elapsed,
    p99Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? Number.NaN,
    peakRssMb: peak,
    failures,
  };
}

async function main() {
  const levels = arg("concurrency", "1,8,32").split(",").map(Number);
  const seconds = Number(arg("duration", 5));
  const rounds = Number(arg("rounds", 2));
  const megabytes = Number(arg("megabytes", 5));
  const png = pngOf(megabytes * 1024 * 1024);
  const form = multipart(png);
  console.log(`a ${(form.body.length / 1024 / 1024).toFixed(2)} MB multipart body (a real PNG) per upload`);

  const app = await startApp({ RATE_LIMITS_ENABLED: "false" });
  const keys = await app.cli(["keys", "create", "--user", "demo", "--scopes", "feed:write"]);
  const appUpload = {
    headers: { "x-api-key": keys.apiKey, "x-user-key": keys.userKey, "content-type": form.contentType },
    body: form.body,
  };
  const url = `${app.baseUrl}/api/v1/attachments`;
  const first = await post(undefined, url, appUpload.headers, appUpload.body);
  if (first.status !== 200) throw new Error(`the app refused the upload: ${first.status} ${first.body}`);

  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--baseline"], {
    env: { ...process.env, UPLOAD_ANSWER: first.body.toString() },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(JSON.parse(d.toString()).port)));
  const sides = {
    app: { name: "app", pid: app.pid, url, upload: appUpload },
    baseline: {
      name: "baseline",
      pid: child.pid,
      url: `http://127.0.0.1:${port}/`,
      upload: { headers: { "content-type": form.contentType }, body: form.body },
    },
  };
  const idle = { app: rssMb(app.pid), baseline: rssMb(child.pid) };
  console.log(`idle RSS: app ${idle.app.toFixed(0)} MB, baseline ${idle.baseline.toFixed(0)} MB`);

  const report = [];
  for (const c of levels) {
    const runs = { app: [], baseline: [] };
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 ? ["baseline", "app"] : ["app", "baseline"]) {
        runs[side].push(await round(sides[side], c, seconds, sides[side].upload));
      }
    }
    const of = (side, key) => median(runs[side].map((x) => x[key]));
    const row = {
      concurrency: c,
      app: {
        uploadsPerSecond: of("app", "uploadsPerSecond"),
        megabytesPerSecond: of("app", "megabytesPerSecond"),
        p99Ms: of("app", "p99Ms"),
        peakRssMb: Math.max(...runs.app.map((x) => x.peakRssMb)),
        failures: runs.app.reduce((n, x) => n + x.failures, 0),
      },
      baseline: {
        uploadsPerSecond: of("baseline", "uploadsPerSecond"),
        megabytesPerSecond: of("baseline", "megabytesPerSecond"),
        p99Ms: of("baseline", "p99Ms"),
        peakRssMb: Math.max(...runs.baseline.map((x) => x.peakRssMb)),
      },
    };
    row.ratio = row.app.uploadsPerSecond / row.baseline.uploadsPerSecond;
    report.push(row);
    console.log(
      `${String(c).padStart(3)} concurrent: app ${row.app.megabytesPerSecond.toFixed(1)} MB/s ` +
        `(${row.app.uploadsPerSecond.toFixed(1)}/s, p99 ${row.app.p99Ms.toFixed(0)} ms, peak RSS ${row.app.peakRssMb.toFixed(0)} MB, ${row.app.failures} failed) | ` +
        `baseline ${row.baseline.megabytesPerSecond.toFixed(1)} MB/s (p99 ${row.baseline.p99Ms.toFixed(0)} ms, peak RSS ${row.baseline.peakRssMb.toFixed(0)} MB) | ratio ${(row.ratio * 100).toFixed(1)}%`,
    );
  }
  const growth = report.at(-1).app.peakRssMb - report[0].app.peakRssMb;
  const perUpload = growth / Math.max(1, report.at(-1).concurrency - report[0].concurrency);
  console.log(
    `app peak RSS from ${report[0].concurrency} to ${report.at(-1).concurrency} concurrent uploads: +${growth.toFixed(0)} MB ` +
      `(${perUpload.toFixed(2)} MB per added upload; a ${(form.body.length / 1024 / 1024).toFixed(1)} MB file each)`,
  );
  child.kill("SIGTERM");
  await app.stop();
}
