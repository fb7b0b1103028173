import { api } from "../../http/access.js";
import { advanceClock, readClock, resetClock, setClock } from "./clock.js";
import { NOTE, OPERATOR, type SandboxRouteKit, TAGS } from "./route-kit.routes.js";
import { AdvanceClockBody, ClockView, SetClockBody } from "./sandbox.schemas.js";

export function registerClockControls({ app, prefix, ctx }: SandboxRouteKit): void {
  app.route({
    method: "GET",
    url: "/sandbox/v1/clock",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxGetClock",
        tags: TAGS,
        summary: "The sandbox clock",
        description: NOTE,
        response: { 200: ClockView },
      },
      prefix,
    ),
    handler: async (request) => readClock(ctx(request)),
  });

  app.route({
    method: "PUT",
    url: "/sandbox/v1/clock",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxSetClock",
        tags: TAGS,
        summary: "Set the time, frozen or running on",
        description: `Token expiry, retention, trade and quote dates and rate-limit windows follow it.${NOTE}`,
        body: SetClockBody,
        response: { 200: ClockView },
      },
      prefix,
    ),
    handler: async (request) => setClock(ctx(request), request.body),
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/clock/advance",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxAdvanceClock",
        tags: TAGS,
        summary: "Move time forward",
        description: NOTE,
        body: AdvanceClockBody,
        response: { 200: ClockView },
      },
      prefix,
    ),
    handler: async (request) => advanceClock(ctx(request), request.body.seconds),
  });

  app.route({
    method: "DELETE",
    url: "/sandbox/v1/clock",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxResetClock",
        tags: TAGS,
        summary: "Back to the real time",
        description: NOTE,
        response: { 200: ClockView },
      },
      prefix,
    ),
    handler: async (request) => resetClock(ctx(request)),
  });
}
