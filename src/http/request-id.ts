import type { IncomingMessage } from "node:http";
import { newId } from "../core/ids.js";

/** A client's id is kept when it is short printable text; otherwise the server makes one. */
const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(req: IncomingMessage): string {
  const header = req.headers["x-request-id"];
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && ACCEPTABLE.test(value) ? value : newId();
}
