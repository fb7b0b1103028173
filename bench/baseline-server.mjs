// The baseline: a plain Node HTTP server that answers every request with the exact status, content
// type and body bytes the app returned for the scenario's request (JSON in BASELINE_RESPONSE_FILE).
// Run as a child process.
// BASELINE_BURN_US: CPU time (a busy loop, not a sleep) spent on each request before answering, for
// bench/cpu-budget.mjs; 0 (the default) everywhere else.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const { status, contentType, body } = JSON.parse(readFileSync(process.env.BASELINE_RESPONSE_FILE, "utf8"));
const bytes = Buffer.from(body, "base64");
const burnNs = BigInt(Math.round(Number(process.env.BASELINE_BURN_US ?? 0) * 1000));
const burn = () => {
  const start = process.hrtime.bigint();
  while (process.hrtime.bigint() - start < burnNs) {
    // busy: the request's work, as CPU
  }
};
const server = createServer((req, res) => {
  // Drain any request body, as the app must, before answering.
  req.resume();
  req.on("end", () => {
    if (burnNs > 0n) burn();
    res.writeHead(status, { "content-type": contentType, "content-length": bytes.length });
    res.end(bytes);
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
