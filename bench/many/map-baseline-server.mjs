// The many-caller baseline: a plain node:http server holding, in a Map keyed by method and URL,
// the exact status, content type and body bytes the app answered for each request of the
// scenario's sequence (captured before the run). Writes are keyed by their route (ids replaced by
// ":id"): the answer of one real write of that kind. Run as a child process.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

// BASELINE_MAP: one JSON [key, answer] per line, the body in base64.
// The file is read as bytes and cut at each newline: as one string it may pass a string's largest length.
const answers = new Map();
const file = readFileSync(process.env.BASELINE_MAP);
for (let at = 0; at < file.length; ) {
  const end = file.indexOf(10, at);
  const [key, a] = JSON.parse(file.toString("utf8", at, end));
  answers.set(key, { status: a.status, contentType: a.contentType, body: Buffer.from(a.body, "base64") });
  at = end + 1;
}
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const a = answers.get(`${req.method} ${req.url}`) ?? answers.get(`${req.method} ${req.url.replace(UUID, ":id")}`);
    if (!a) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(a.status, { "content-type": a.contentType, "content-length": a.body.length });
    res.end(a.body);
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
