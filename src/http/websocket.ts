import { createServer, type IncomingMessage, type Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.js";
import { clientAddressResolver } from "./client-address.js";

/** Where the real-time channel is served (decision 0110). */
export const REALTIME_PATH = "/ws";

/** What takes a checked upgrade over: the real-time module's server (src/modules/realtime/server.ts). */
export interface UpgradeTarget {
  /** `clientAddress`: the client's address as the REST API's `request.ip` would be (TRUST_PROXY). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, clientAddress: string): void;
  close(): Promise<void>;
}

const refuse = (socket: Duplex, status: number, text: string) => {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
};

/**
 * The upgrade to the real-time channel (docs/realtime.md, decision 0110): `GET /ws` on the API's
 * own server, no subprotocol and no credentials on the upgrade (Authenticate comes in-band). A
 * browser's Origin must pass the same CORS_ORIGINS rule as the API's answers (`*` any, a list, or
 * none); a client that sends no Origin (a bot, a server) is not a browser and is let through. With REALTIME_PORT the channel is served on that port as well.
 */
export function registerWebSocketUpgrade(app: FastifyInstance, config: Config, realtime: UpgradeTarget): void {
  const origins = config.corsOrigins;
  const listed = new Set(origins === "*" ? [] : origins);
  const clientAddress = clientAddressResolver(config.trustProxy);
  type Fallback = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;
  const onUpgrade = (otherwise: Fallback) => (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? "").split("?")[0];
    const websocket = request.headers.upgrade?.toLowerCase() === "websocket";
    if (path !== REALTIME_PATH || !websocket) return otherwise(request, socket, head);
    const origin = request.headers.origin;
    if (origin !== undefined && origins !== "*" && !listed.has(origin)) return refuse(socket, 403, "Forbidden");
    realtime.handleUpgrade(request, socket, head, clientAddress(request));
  };
  /**
   * Any other request that asks for an upgrade (`Upgrade: h2c` from `curl --http2`, a WebSocket
   * elsewhere) is served as the plain HTTP request it also is, once, on a closing connection:
   * Node hands every upgrade to this listener, so without this the API would refuse them.
   */
  const served: Fallback = (request, socket, head) => {
    if (head.length > 0) request.unshift(head);
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket as Socket);
    response.on("finish", () => socket.end());
    app.server.emit("request", request, response);
  };
  app.server.on("upgrade", onUpgrade(served));

  let own: Server | undefined;

  const port = config.realtime.port;
  if (port !== undefined) {
    own = createServer((_request, response) => {
      response.writeHead(426, { "content-type": "text/plain", upgrade: "websocket" }).end("Upgrade Required\n");
    });
    own.on(
      "upgrade",
      onUpgrade((_request, socket) => refuse(socket, 404, "Not Found")),
    );
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
