import { Type } from "typebox";
import { api } from "../../../http/access.js";
import type { App } from "../../../http/app-type.js";
import { errorResponse, NoContent } from "../../../http/schemas.js";
import { type Deps, withActor } from "../../context.js";
import { READ_SCOPES, TRADE_SCOPES } from "../../trading/demo-account.js";
import { fundCopy, listCopies, pauseCopy, startCopy, stopCopy } from "./copies.js";
import { Copy } from "./copies.schemas.js";
import { toCopy } from "./copies.view.js";

const TAGS = ["Copy Trading"];
const MirrorParams = Type.Object({ mirrorId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
/** Request numbers are bounded (decision 0100); the use cases answer the business limits. */
const Usd = () => Type.Number({ minimum: -1e9, maximum: 1e9 });
const NOT_FOUND = errorResponse(404, "No such copy of the caller's (agent portfolios' copies are managed there)");
const write = { scopes: TRADE_SCOPES, requestIdRequired: true } as const;

/** Copying a person: our own paths, upstream has no public operation for it (decision 0147). */
export function registerCopyRoutes(app: App, deps: Deps): void {
  const prefix = deps.config.scopePrefix;

  app.route({
    method: "GET",
    url: "/api/v1/copy-trading/copies",
    ...api(
      { scopes: READ_SCOPES },
      {
        operationId: "listCopies",
        tags: TAGS,
        summary: "The people the caller copies",
        response: { 200: Type.Object({ copies: Type.Array(Copy) }) },
      },
      prefix,
    ),
    handler: async (request) => ({ copies: (await listCopies(withActor(deps, request.actor))).map(toCopy) }),
  });

  app.route({
    method: "POST",
    url: "/api/v1/copy-trading/copies",
    ...api(
      write,
      {
        operationId: "startCopy",
        tags: TAGS,
        summary: "Start copying a person",
        description:
          "Moves `amount` USD of the caller's demo cash (COPY_MIN_INVESTMENT … COPY_MAX_INVESTMENT) into a copy of " +
          "`username`: each position they open from now on is opened for the caller at the caller's share, and " +
          "their closes followed. `stopLossAmount`: a floor on the copy's value that stops it. Only users who " +
          "allow copying (not private); nobody copies themself (422); COPY_MAX_COPIES_PER_USER copies at most " +
          "(409). The copied user is told (`CopyStarted`).",
        body: Type.Object({
          username: Type.String({ minLength: 1, maxLength: 64 }),
          amount: Usd(),
          stopLossAmount: Type.Optional(Usd()),
        }),
        response: {
          201: Copy,
          404: errorResponse(404, "No such user, or one who may not be copied"),
          409: errorResponse(409, "The caller has the most copies allowed"),
        },
      },
      prefix,
    ),
    handler: async (request, reply) => {
      const copy = await startCopy(withActor(deps, request.actor), request.body);
      return reply.status(201).send(toCopy(copy));
    },
  });

  app.route({
    method: "POST",
    url: "/api/v1/copy-trading/copies/:mirrorId/funds",
    ...api(
      write,
      {
        operationId: "fundCopy",
        tags: TAGS,
        summary: "Add (positive) or remove (negative) cash between the account and a copy",
        params: MirrorParams,
        body: Type.Object({ amount: Usd() }),
        response: { 200: Copy, 404: NOT_FOUND, 409: errorResponse(409, "The copy is stopping") },
      },
      prefix,
    ),
    handler: async (request) =>
      toCopy(await fundCopy(withActor(deps, request.actor), request.params.mirrorId, request.body.amount)),
  });

  pauseRoute(app, deps, "POST", "/api/v1/copy-trading/copies/:mirrorId/pause", "pauseCopy", true);
  pauseRoute(app, deps, "POST", "/api/v1/copy-trading/copies/:mirrorId/resume", "resumeCopy", false);

  app.route({
    method: "DELETE",
    url: "/api/v1/copy-trading/copies/:mirrorId",
    ...api(
      write,
      {
        operationId: "stopCopy",
        tags: TAGS,
        summary: "Stop a copy: its positions closed at market, its cash and P/L back in the account",
        params: MirrorParams,
        response: { 204: NoContent, 404: NOT_FOUND },
      },
      prefix,
    ),
    handler: async (request, reply) => {
      await stopCopy(withActor(deps, request.actor), request.params.mirrorId);
      return reply.status(204).send(null);
    },
  });
}

/** Pause (no new opens; closes still followed) or resume a copy. */
function pauseRoute(app: App, deps: Deps, method: "POST", url: string, operationId: string, paused: boolean): void {
  app.route({
    method,
    url,
    ...api(
      write,
      {
        operationId,
        tags: TAGS,
        summary: paused ? "Pause a copy: no new opens, closes still followed" : "Resume a paused copy",
        params: MirrorParams,
        response: { 200: Copy, 404: NOT_FOUND },
      },
      deps.config.scopePrefix,
    ),
    handler: async (request) =>
      toCopy(await pauseCopy(withActor(deps, request.actor), request.params.mirrorId, paused)),
  });
}
