import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import type { Deps } from "../context.js";
import { Connection, type RealtimeAuthenticators } from "./connection.js";
import { KEEPALIVE, MAX_FRAME_BYTES } from "./protocol.js";

/** The channel's path, on the API's port (and on REALTIME_PORT when set). */
export interface RealtimeServer {
  /** Takes over an HTTP upgrade already checked for path and origin, from `clientAddress`. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, clientAddress: string): void;
  /** Closes every socket (1001, going away) and stops the keepalive. */
  close(): Promise<void>;
}

const GOING_AWAY = 1001;
/** Frames given as bytes are text frames too (ws would send a Buffer as binary). */
const TEXT = { binary: false } as const;
/** How long a closing socket may take to answer the close frame before it is cut. */
const CLOSE_GRACE_MS = 2000;

/**
 * The WebSocket side (`ws` in noServer mode): no subprotocol, frames over 25 KiB end the socket
 * (1009), every socket gets a Connection. Every `keepaliveMs` each socket is sent upstream's
 * binary 0x00 frame and a ping; one that answered no ping since the last round is cut.
 */
export function createRealtimeServer(deps: Deps, auth: RealtimeAuthenticators): RealtimeServer {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    perMessageDeflate: false,
    clientTracking: true,
    handleProtocols: () => false,
  });
  const alive = new WeakMap<WebSocket, boolean>();
  const { authTimeoutSeconds, maxUnauthenticated } = deps.config.realtime;
  /** Sockets that have not authenticated yet (decision 0118). */
  let unauthenticated = 0;

  wss.on("connection", (ws: WebSocket, _request: IncomingMessage, clientAddress: string) => {
    let cut: NodeJS.Timeout | undefined;
    const closeSocket = (code: number, reason: string) => {
      ws.close(code, reason);
      cut ??= setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
      cut.unref();
    };
    unauthenticated += 1;
    let pending = true;
    const deadline =
      authTimeoutSeconds > 0
        ? setTimeout(
            () => closeSocket(1008, `Authenticate within ${authTimeoutSeconds} seconds`),
            authTimeoutSeconds * 1000,
          )
        : undefined;
    deadline?.unref();
    const admitted = () => {
      if (!pending) return;
      pending = false;
      unauthenticated -= 1;
      if (deadline) clearTimeout(deadline);
    };
    const connection = new Connection(
      deps,
      auth,
      {
        send: (data, done) => ws.send(data, TEXT, done),
        get bufferedAmount() {
          return ws.bufferedAmount;
        },
        overflow: (code, reason) => {
          deps.log.info({ code, reason }, "realtime: closing a slow consumer");
          closeSocket(code, reason);
        },
      },
      closeSocket,
      admitted,
      clientAddress,
    );
    alive.set(ws, true);
    ws.on("pong", () => alive.set(ws, true));
    ws.on("message", (data, isBinary) => {
      if (isBinary) connection.receiveBinary();
      else connection.receive(data.toString());
    });
    ws.on("error", (error) => deps.log.debug({ err: error }, "realtime socket error"));
    ws.on("close", () => {
      if (cut) clearTimeout(cut);
      admitted();
      connection.end();
    });
  });

  const keepaliveMs = deps.config.realtime.keepaliveMs;
  const timer =
    keepaliveMs > 0
      ? setInterval(() => {
          for (const ws of wss.clients) {
            if (!alive.get(ws)) {
              ws.terminate();
              continue;
            }
            alive.set(ws, false);
            ws.ping();
            ws.send(KEEPALIVE);
          }
        }, keepaliveMs)
      : undefined;
  timer?.unref();

  return {
    handleUpgrade(request, socket, head, clientAddress) {
      if (unauthenticated >= maxUnauthenticated) {
        socket.end(
          "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        );
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit("connection", ws, request, clientAddress));
    },
    async close() {
      if (timer) clearInterval(timer);
      const closing = [...wss.clients].map(
        (ws) =>
          new Promise<void>((resolve) => {
            ws.once("close", () => resolve());
            ws.close(GOING_AWAY, "Server shutting down");
            setTimeout(() => {
              ws.terminate();
              resolve();
            }, CLOSE_GRACE_MS).unref();
          }),
      );
      await Promise.all(closing);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
