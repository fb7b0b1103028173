import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import WebSocket from "ws";
import type { App } from "../../src/app.js";

export interface Reply {
  id?: string | number;
  success: boolean;
  operation?: string;
  errorCode?: string;
  errorMessage?: string;
}

export interface Pushed {
  topic: string;
  type: string;
  id: string;
  content: Record<string, unknown>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(5);
  }
}

/** The app listening on a free port (once); its ws:// URL. */
export async function listening(app: App): Promise<string> {
  if (!app.server.listening) await app.listen({ port: 0, host: "127.0.0.1" });
  return `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/ws`;
}

/**
 * A real client of the channel, as an upstream client would be: every frame it receives is
 * recorded in order (replies, pushed messages parsed twice, binary frames).
 */
export class Client {
  readonly replies: Reply[] = [];
  readonly pushed: Pushed[] = [];
  readonly binary: Buffer[] = [];
  /** Every text frame, in order, as received. */
  readonly frames: string[] = [];
  pings = 0;
  closed: { code: number; reason: string } | undefined;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data, isBinary) => {
      if (isBinary) {
        this.binary.push(data as Buffer);
        return;
      }
      const text = data.toString();
      this.frames.push(text);
      const frame = JSON.parse(text);
      if (Array.isArray(frame.messages)) {
        for (const m of frame.messages) this.pushed.push({ ...m, content: JSON.parse(m.content) });
      } else this.replies.push(frame);
    });
    ws.on("ping", () => {
      this.pings += 1;
    });
    ws.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
    });
    ws.on("error", () => {});
  }

  static async open(url: string, options: WebSocket.ClientOptions = {}): Promise<Client> {
    const ws = new WebSocket(url, options);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
    return new Client(ws);
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /** Sends one operation and waits for the reply that echoes its id. */
  async request(operation: string, data?: unknown): Promise<Reply> {
    const id = randomUUID();
    this.send({ id, operation, ...(data === undefined ? {} : { data }) });
    return this.replyTo(id);
  }

  async replyTo(id: string): Promise<Reply> {
    await until(`the reply to ${id}`, () => this.replies.some((r) => r.id === id) || this.closed !== undefined);
    const reply = this.replies.find((r) => r.id === id);
    if (!reply) throw new Error(`closed before the reply to ${id}: ${JSON.stringify(this.closed)}`);
    return reply;
  }

  authenticate(headers: Record<string, string>): Promise<Reply> {
    return this.request("Authenticate", { apiKey: headers["x-api-key"], userKey: headers["x-user-key"] });
  }

  async waitFor(what: string, check: (p: Pushed) => boolean, timeoutMs = 5000): Promise<Pushed> {
    await until(what, () => this.pushed.some(check), timeoutMs);
    return this.pushed.find(check)!;
  }

  of(topic: string): Pushed[] {
    return this.pushed.filter((p) => p.topic === topic);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    const done = new Promise<void>((r) => this.ws.once("close", () => r()));
    this.ws.close(1000, "Client disconnect");
    await done;
  }
}
