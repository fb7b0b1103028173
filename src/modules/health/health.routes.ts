import { Type } from "typebox";
import { AppError } from "../../core/errors.js";
import type { App } from "../../http/app-type.js";
import { ErrorBody } from "../../http/schemas.js";
import type { Deps } from "../context.js";

/** Liveness and readiness for load balancers and orchestrators; no auth, no rate limit. */
export function registerHealthRoutes(app: App, deps: Deps): void {
  const Status = Type.Object({ status: Type.String() });
  app.get(
    "/health",
    { schema: { tags: ["Health"], summary: "The process is alive", response: { 200: Status } } },
    async () => ({ status: "ok" }),
  );
  app.get(
    "/ready",
    {
      schema: {
        tags: ["Health"],
        summary: "The process can serve: its database answers",
        response: { 200: Status, 503: ErrorBody },
      },
    },
    async () => {
      try {
        await deps.db.ping();
      } catch {
        throw new AppError("ServiceUnavailable", "The database is not reachable");
      }
      return { status: "ready" };
    },
  );
}
