import { api } from "../../http/access.js";
import type { App } from "../../http/app-type.js";
import { sendBytesWhenReady } from "../../http/cached-reply.js";
import { NoContent } from "../../http/schemas.js";
import { type Deps, withActor } from "../context.js";
import { LIST_NOTIFICATIONS_SCOPES, pollNotifications } from "./list-notifications.js";
import { MARK_ALL_READ_SCOPES, markAllNotificationsRead } from "./mark-all-read.js";
import { NotificationResult } from "./notifications.schemas.js";

export function registerNotificationRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;
  app.route({
    method: "GET",
    url: "/api/v1/notifications/messages",
    ...api(
      // The default pool plus 1 request per second (upstream).
      { scopes: LIST_NOTIFICATIONS_SCOPES, requestIdRequired: true, rateLimit: "notifications" },
      {
        operationId: "getInAppNotifications",
        tags: ["Notifications"],
        summary: "Get in-app notifications",
        description:
          "Returns all in-app notifications of the caller, newest first, as they stood before this read; " +
          "`meta.notSeen` counts those that were `New`. The read then moves `New` to `Seen`.",
        response: { 200: NotificationResult },
      },
      prefix,
    ),
    // The bytes are the 200 schema's serialization of the answer (list-notifications.ts), sent as
    // they are; a poll that finds nothing new is answered at once, with no promise.
    handler: (request, reply) =>
      sendBytesWhenReady(
        reply,
        pollNotifications(deps, request.actor, (result) => String(reply.serialize(result))),
      ),
  });

  app.route({
    method: "PATCH",
    url: "/api/v1/notifications/messages",
    ...api(
      { scopes: MARK_ALL_READ_SCOPES, requestIdRequired: true },
      {
        operationId: "markAllNotificationsAsRead",
        tags: ["Notifications"],
        summary: "Mark all notifications as read",
        response: { 204: NoContent },
      },
      prefix,
    ),
    handler: async (request, reply) => {
      await markAllNotificationsRead(withActor(deps, request.actor));
      return reply.status(204).send(null);
    },
  });
}
