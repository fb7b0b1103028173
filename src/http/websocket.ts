import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.js";
import { REALTIME_PATH, type RealtimeServer } from "../modules/realtime/server.js";

const refuse = (socket: Duplex, status: number, text: string) => {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
};

/**
 * The upgrade to the real-time channel (docs/realtime.md, decision 0110): `GET /ws` on the API's
 * own server, no subprotocol and no credentials on the upgrade (Authenticate comes in-band). A
 * browser's Origin must pass the same CORS_ORIGINS rule as the API's answers (`*` any, a list, or
 * none); a client that sends no Origin (a bot, a server) is not a browser and is let through.
 * Any other path is 404. With REALTIME_PORT the channel is served on that port as well.
 */
export function registerWebSocketUpgrade(app: FastifyInstance, config: Config, realtime: RealtimeServer): void {
  const origins = config.corsOrigins;
  const listed = new Set(origins === "*" ? [] : origins);
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== REALTIME_PATH) return refuse(socket, 404, "Not Found");
    const origin = request.headers.origin;
    if (origin !== undefined && origins !== "*" && !listed.has(origin)) return refuse(socket, 403, "Forbidden");
    realtime.handleUpgrade(request, socket, head);
  };
  app.server.on("upgrade", onUpgrade);

  let own: Server | undefined;
  const port = config.realtime.port;
  if (port !== undefined) {
    own = createServer((_request, response) => {
      response.writeHead(426, { "content-type": "text/plain", upgrade: "websocket" }).end("Upgrade Required\n");
    });
    own.on("upgrade", onUpgrade);
    // Listening once the app is ready (buildApp awaits it), so `serve` can print its address.
    app.addHook("onReady", async () => {
      await new Promise<void>((resolve, reject) => {
        own!.once("error", reject);
        own!.listen(port, config.host, () => resolve());
      });
    });
  }
  app.decorate("realtimeAddress", () => own?.address() ?? null);
  // Before the HTTP server closes: it would otherwise wait for the upgraded sockets.
  app.addHook("preClose", async () => {
    await realtime.close();
    if (own?.listening) await new Promise<void>((resolve) => own!.close(() => resolve()));
  });
}

declare module "fastify" {
  interface FastifyInstance {
    /** Where REALTIME_PORT's own server listens, or null (the channel is on the API's port only). */
    realtimeAddress(): ReturnType<Server["address"]>;
  }
}
