import { Type } from "typebox";
import type { App } from "../../http/app-type.js";
import { Int32Id } from "../../http/schemas.js";
import type { Deps } from "../context.js";
import { getUserAvatarSvg } from "./user-profiles.js";

/**
 * User avatar images. Public (no credentials): an <img> tag cannot send the key pair, and an
 * avatar of initials discloses nothing the profile does not.
 */
export function registerAvatarRoutes(app: App, deps: Deps): void {
  app.route({
    method: "GET",
    url: "/api/v1/avatars/users/:gcid/:file",
    schema: {
      hide: true,
      params: Type.Object({ gcid: Int32Id(), file: Type.String() }),
    },
    handler: async (request, reply) => {
      const { gcid, file } = request.params;
      const svg = file.endsWith(".svg") ? await getUserAvatarSvg(deps, gcid, file.slice(0, -4)) : null;
      if (svg === null) {
        return reply.status(404).send({ errorCode: "NotFound", errorMessage: "No such avatar", requestId: request.id });
      }
      return reply.header("content-type", "image/svg+xml").header("cache-control", "public, max-age=86400").send(svg);
    },
  });
}
