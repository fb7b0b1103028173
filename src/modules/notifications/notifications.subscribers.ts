import type { Deps } from "../context.js";
import { notify } from "./notify.js";

/** Turns domain events into notifications. Runs after the publishing transaction commits. */
export function registerNotificationSubscribers(deps: Deps): void {
  deps.bus.subscribe("UserRegistered", async (event) => {
    await notify(deps, {
      userId: event.userId,
      kind: "welcome",
      message: `Welcome, ${event.username}! Your demo account is ready.`,
      actionLink: "/api/v1/me",
      correlationId: event.userId,
      publishDate: event.occurredAt,
    });
  });
}
