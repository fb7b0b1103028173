import { randomUUID } from "node:crypto";

/**
 * Upstream's WebSocket protocol (../shared/reference/upstream-websocket.md, docs/realtime.md):
 * client requests `{ id, operation, data }`, replies `{ id, success, operation, errorCode?,
 * errorMessage? }`, pushes `{ messages: [{ topic, content, id, type }] }` with `content` a JSON
 * string. Pure: frames in, frames out.
 */

export const OPERATIONS = ["Authenticate", "Subscribe", "Unsubscribe"] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Upstream's error codes and descriptions (its Authenticate page), plus the two it was seen to send. */
export const ERROR_MESSAGES = {
  SessionAlreadyAuthenticated: "Session is already authenticated",
  DataRequired: "Data is required",
  ApiKeyRequired: "ApiKey is required",
  UserKeyRequired: "UserKey is required",
  TooManyRequests: "Too many requests",
  Forbidden: "Access to this resource is forbidden. Please contact customer support for assistance",
  UnhandledException: "Global Error",
  InvalidKey: "Key is invalid",
  Unauthorized: "Unauthorized",
  SubscribeFailed: "Subscribe failed",
  BinaryMessagesNotSupported: "Binary messages are not supported",
  // Ours: upstream's answer to these is not on record (decision 0112).
  InvalidMessage: "The message is not a JSON object with an id and an operation",
  OperationNotSupported: "The operation is not supported",
} as const;
export type ErrorCode = keyof typeof ERROR_MESSAGES;

/** Upstream's measured limits: topics per connection and bytes per client frame. */
export const MAX_TOPICS = 4999;
export const MAX_FRAME_BYTES = 25 * 1024;

export type RequestId = string | number | undefined;

export interface Request {
  id: RequestId;
  operation: Operation;
  data: Record<string, unknown> | undefined;
}

export type Parsed = { ok: true; request: Request } | { ok: false; reply: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A client text frame. Upstream's own Authenticate sample leaves `operation` out: a frame
 * without one whose data holds `apiKey` or `userKey` is taken as Authenticate.
 */
export function parseRequest(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reply: failure(undefined, undefined, "InvalidMessage") };
  }
  if (!isObject(value)) return { ok: false, reply: failure(undefined, undefined, "InvalidMessage") };
  // Echoed as sent (upstream's clients send a uuid string; a number stays a number).
  const id = typeof value.id === "string" || typeof value.id === "number" ? value.id : undefined;
  const data = isObject(value.data) ? value.data : undefined;
  let operation = value.operation;
  if (operation === undefined && data && ("apiKey" in data || "userKey" in data)) operation = "Authenticate";
  if (typeof operation !== "string") return { ok: false, reply: failure(id, undefined, "InvalidMessage") };
  const known = OPERATIONS.find((o) => o.toLowerCase() === operation.toLowerCase());
  if (!known) return { ok: false, reply: failure(id, operation.slice(0, 100), "OperationNotSupported") };
  return { ok: true, request: { id, operation: known, data } };
}

const reply = (fields: Record<string, unknown>) => JSON.stringify(fields);

export const success = (id: RequestId, operation: string) => reply({ id, success: true, operation });

export function failure(
  id: RequestId,
  operation: string | undefined,
  errorCode: ErrorCode,
  errorMessage: string = ERROR_MESSAGES[errorCode],
): string {
  return reply({ id, success: false, operation, errorCode, errorMessage });
}

/** One pushed message, serialized: `content` is itself a JSON string. */
export const message = (topic: string, type: string, content: unknown, id: string = randomUUID()): string =>
  JSON.stringify({ topic, content: JSON.stringify(content), id, type });

/** The envelope of one or more serialized messages. */
export const envelope = (messages: readonly string[]) => `{"messages":[${messages.join(",")}]}`;

const OPEN = Buffer.from('{"messages":[');
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]}");

/**
 * The same envelope built from messages already encoded as UTF-8 bytes: one copy of each into the
 * frame, no string to build and encode per socket (a tick's messages are encoded once for all).
 */
export function envelopeBytes(messages: readonly Buffer[]): Buffer {
  let size = OPEN.length + CLOSE.length + messages.length - 1;
  for (const m of messages) size += m.length;
  const frame = Buffer.allocUnsafe(size);
  let at = OPEN.copy(frame, 0);
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) at += COMMA.copy(frame, at);
    at += messages[i]!.copy(frame, at);
  }
  CLOSE.copy(frame, at);
  return frame;
}

/** The keepalive upstream sends: a binary frame holding one zero byte. */
export const KEEPALIVE = Buffer.from([0]);
