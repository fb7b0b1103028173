import { createServer, type Server, Socket } from "node:net";

/**
 * A TCP proxy in the test process between the app and a real server (PostgreSQL, Redis), so a
 * test can fail the link without touching the shared server:
 * - `cut()`: every open connection is reset and new ones are refused (the server went away);
 * - `freeze()`: connections are accepted and kept, but nothing is forwarded either way (a hung
 *   server, or a network that drops packets);
 * - `restore()`: forwards again; frozen connections resume where they were (as a thawed server
 *   would), connections accepted while frozen are reset.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket; orphan?: boolean }>();
  private mode: "open" | "cut" | "frozen" = "open";
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Starts listening on a free port of 127.0.0.1 (the same port across cut and restore). */
  async start(): Promise<void> {
    await this.listen(0);
  }

  private listen(port: number): Promise<void> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        this.port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  private accept(client: Socket): void {
    client.on("error", () => {});
    if (this.mode === "cut") {
      client.resetAndDestroy();
      return;
    }
    if (this.mode === "frozen") {
      // Accepted, never answered: the peer waits for bytes that do not come.
      client.pause();
      this.pairs.add({ client, upstream: new Socket(), orphan: true });
      return;
    }
    const upstream = new Socket();
    const pair = { client, upstream };
    this.pairs.add(pair);
    upstream.on("error", () => client.destroy());
    client.on("close", () => {
      upstream.destroy();
      this.pairs.delete(pair);
    });
    upstream.on("close", () => {
      client.destroy();
      this.pairs.delete(pair);
    });
    upstream.connect(this.targetPort, this.targetHost, () => {
      client.pipe(upstream);
      upstream.pipe(client);
    });
  }

  /** The server is gone: open connections are reset, new ones refused (accepted, then reset). */
  cut(): void {
    this.mode = "cut";
    for (const { client, upstream } of this.pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  /** The server hangs: nothing is forwarded on open connections, new ones are accepted and left unanswered. */
  freeze(): void {
    this.mode = "frozen";
    for (const { client, upstream } of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /** Back to forwarding: frozen connections carry on, those accepted while frozen are reset. */
  restore(): void {
    if (this.mode === "frozen") {
      for (const pair of [...this.pairs]) {
        if (pair.orphan) {
          pair.client.resetAndDestroy();
          this.pairs.delete(pair);
          continue;
        }
        pair.client.pipe(pair.upstream);
        pair.upstream.pipe(pair.client);
        pair.client.resume();
        pair.upstream.resume();
      }
    }
    this.mode = "open";
  }

  get connections(): number {
    return this.pairs.size;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
