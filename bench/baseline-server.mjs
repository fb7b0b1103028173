// The baseline: a plain Node HTTP server that answers every request with the exact status, content
// type and body bytes the app returned for the scenario's request. Run as a child process.
import { createServer } from "node:http";

const { status, contentType, body } = JSON.parse(process.env.BASELINE_RESPONSE);
const bytes = Buffer.from(body, "base64");
const server = createServer((req, res) => {
  // Drain any request body, as the app must, before answering.
  req.resume();
  req.on("end", () => {
    res.writeHead(status, { "content-type": contentType, "content-length": bytes.length });
    res.end(bytes);
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
