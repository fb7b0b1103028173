import cors from "@fastify/cors";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.js";

/** Any browser app (or the listed origins) may call the API with its own credentials: headers, never cookies. */
export async function registerCors(app: FastifyInstance, origins: Config["corsOrigins"]): Promise<void> {
  await app.register(cors, {
    origin: origins === "*" ? "*" : origins,
    allowedHeaders: ["content-type", "authorization", "x-api-key", "x-user-key", "x-request-id"],
    exposedHeaders: [
      "x-request-id",
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
      "RateLimit-Policy",
      "Retry-After",
      "WWW-Authenticate",
    ],
    methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    maxAge: 600,
  });
}
