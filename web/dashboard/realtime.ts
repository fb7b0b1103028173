/*
 * The real-time channel (docs/realtime.md): one WebSocket on /ws, authenticated in-band with the
 * OAuth access token, subscribed to the watched instruments, `private` (order events) and
 * `notifications`. Reconnects with a growing delay; the caller polls REST meanwhile.
 */

export interface RatePush {
  instrumentId: number;
  /** Only the fields that moved (a delta), every value a string; the snapshot has them all. */
  fields: Record<string, string>;
}

export interface PushMessage {
  topic: string;
  type: string;
  content: Record<string, unknown>;
}

export type ChannelState = "connecting" | "live" | "reconnecting";

export interface RealtimeHandlers {
  onRate(rate: RatePush): void;
  onPrivate(message: PushMessage): void;
  onNotification(message: PushMessage): void;
  onState(state: ChannelState, detail?: string): void;
}

export class Realtime {
  private socket: WebSocket | null = null;
  private topics = new Set<string>();
  private subscribed = new Set<string>();
  private authenticated = false;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private nextId = 1;

  constructor(
    private readonly token: () => Promise<string | null>,
    private readonly handlers: RealtimeHandlers,
  ) {}

  /** The topics wanted; new ones are subscribed at once on a live socket. */
  want(topics: Iterable<string>): void {
    for (const t of topics) this.topics.add(t);
    this.subscribeMissing();
  }

  start(): void {
    this.closed = false;
    void this.connect();
  }

  stop(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.socket?.close(1000, "signed out");
    this.socket = null;
  }

  private send(operation: string, data: unknown): void {
    this.socket?.send(JSON.stringify({ id: String(this.nextId++), operation, data }));
  }

  private subscribeMissing(): void {
    if (!this.authenticated) return;
    const missing = [...this.topics].filter((t) => !this.subscribed.has(t));
    if (missing.length === 0) return;
    for (const t of missing) this.subscribed.add(t);
    this.send("Subscribe", { topics: missing, snapshot: true });
  }

  private async connect(): Promise<void> {
    this.handlers.onState(this.attempt === 0 ? "connecting" : "reconnecting");
    const token = await this.token();
    if (!token || this.closed) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws`);
    this.socket = socket;
    this.authenticated = false;
    this.subscribed.clear();
    socket.addEventListener("open", () => this.send("Authenticate", { accessToken: token }));
    socket.addEventListener("message", (event) => {
      if (typeof event.data !== "string") return; // the keep-alive byte
      this.onFrame(JSON.parse(event.data) as Record<string, unknown>);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.authenticated = false;
      if (this.closed) return;
      this.attempt += 1;
      const delay = Math.min(30_000, 500 * 2 ** Math.min(this.attempt, 6));
      this.handlers.onState("reconnecting", event.reason || `closed (${event.code})`);
      this.timer = setTimeout(() => void this.connect(), delay);
    });
  }

  private onFrame(frame: Record<string, unknown>): void {
    if ("operation" in frame && "success" in frame) {
      if (frame.operation === "Authenticate") {
        if (frame.success) {
          this.authenticated = true;
          this.attempt = 0;
          this.handlers.onState("live");
          this.subscribeMissing();
        } else {
          this.handlers.onState("reconnecting", String(frame.errorMessage ?? frame.errorCode));
          this.socket?.close();
        }
      }
      return;
    }
    const messages = (frame.messages ?? []) as { topic: string; type: string; content: string }[];
    for (const m of messages) {
      const content = JSON.parse(m.content) as Record<string, unknown>;
      if (m.topic.startsWith("instrument:")) {
        this.handlers.onRate({
          instrumentId: Number(m.topic.slice("instrument:".length)),
          fields: content as Record<string, string>,
        });
      } else if (m.topic === "private") {
        this.handlers.onPrivate({ topic: m.topic, type: m.type, content });
      } else if (m.topic === "notifications") {
        this.handlers.onNotification({ topic: m.topic, type: m.type, content });
      }
    }
  }
}
