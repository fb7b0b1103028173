import { api } from "../../http/access.js";
import { FAULT_HEADER } from "./fault-injection.routes.js";
import { armFault, clearFaults, listFaults, removeFault } from "./faults.js";
import { NOTE, OPERATOR, type SandboxRouteKit, TAGS } from "./route-kit.routes.js";
import { AddFaultBody, FaultList, FaultParams, FaultView, Removed } from "./sandbox.schemas.js";
import { toFaultView } from "./sandbox.view.js";

export function registerFaultControls({ app, prefix, ctx }: SandboxRouteKit): void {
  app.route({
    method: "GET",
    url: "/sandbox/v1/faults",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxListFaults",
        tags: TAGS,
        summary: "The armed faults",
        description: NOTE,
        response: { 200: FaultList },
      },
      prefix,
    ),
    handler: async (request) => ({ faults: listFaults(ctx(request)).map(toFaultView) }),
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/faults",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxArmFault",
        tags: TAGS,
        summary: "Arm a fault: the next N calls (or a share of calls) of an operation by a credential fail",
        description:
          "A faulted call answers 429 or 503 (with `Retry-After`) or 500 in the one error body, or waits `delayMs` " +
          `and then runs; every faulted answer carries \`${FAULT_HEADER}: <kind>; id=<fault id>\`.${NOTE}`,
        body: AddFaultBody,
        response: { 201: FaultView },
      },
      prefix,
    ),
    handler: async (request, reply) => reply.status(201).send(toFaultView(await armFault(ctx(request), request.body))),
  });

  app.route({
    method: "DELETE",
    url: "/sandbox/v1/faults",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxClearFaults",
        tags: TAGS,
        summary: "Disarm every fault",
        description: NOTE,
        response: { 200: Removed },
      },
      prefix,
    ),
    handler: async (request) => ({ removed: clearFaults(ctx(request)) }),
  });

  app.route({
    method: "DELETE",
    url: "/sandbox/v1/faults/:faultId",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxRemoveFault",
        tags: TAGS,
        summary: "Disarm one fault",
        description: NOTE,
        params: FaultParams,
        response: { 200: Removed },
      },
      prefix,
    ),
    handler: async (request) => ({ removed: removeFault(ctx(request), request.params.faultId) }),
  });
}
