import { api } from "../../http/access.js";
import { seedDemoWorld } from "../../seed/seed.js";
import { NOTE, OPERATOR, type SandboxRouteKit, TAGS } from "./route-kit.routes.js";
import { ResetWorldBody, SnapshotBody, SnapshotList, SnapshotView, WorldProgress } from "./sandbox.schemas.js";
import { listSnapshots, resetWorld, saveSnapshot } from "./world.js";

export function registerWorldControls({ app, prefix, ctx }: SandboxRouteKit): void {
  app.route({
    method: "POST",
    url: "/sandbox/v1/world/reset",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxResetWorld",
        tags: TAGS,
        summary: "Reset everything to the seed, or to a snapshot saved earlier",
        description:
          "Every table is emptied and filled again (the seed's demo world, or the snapshot's rows); prices, pauses, " +
          "scripts, faults and the clock go back to their start. The answer lists each step done, with the rows " +
          `written and the time taken.${NOTE}`,
        body: ResetWorldBody,
        response: { 200: WorldProgress },
      },
      prefix,
    ),
    handler: async (request) => resetWorld(ctx(request), request.body.snapshot, seedDemoWorld),
  });

  app.route({
    method: "GET",
    url: "/sandbox/v1/world/snapshots",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxListSnapshots",
        tags: TAGS,
        summary: "The saved snapshots",
        description: NOTE,
        response: { 200: SnapshotList },
      },
      prefix,
    ),
    handler: async (request) => ({ snapshots: await listSnapshots(ctx(request)) }),
  });

  app.route({
    method: "POST",
    url: "/sandbox/v1/world/snapshots",
    ...api(
      OPERATOR,
      {
        operationId: "sandboxSaveSnapshot",
        tags: TAGS,
        summary: "Save the world as a named snapshot (replacing one of that name)",
        description: NOTE,
        body: SnapshotBody,
        response: { 201: SnapshotView },
      },
      prefix,
    ),
    handler: async (request, reply) => reply.status(201).send(await saveSnapshot(ctx(request), request.body.name)),
  });
}
