import type { Access } from "../../http/access.js";
import type { App } from "../../http/app-type.js";
import { type Deps, withActor } from "../context.js";
import { SANDBOX_SCOPES } from "./sandbox-access.js";

export const TAGS = ["Sandbox"];

/** Every control: the operator's scope only; the default pool (no `writes` pool: a control is not a client's write). */
export const OPERATOR: Access = { scopes: SANDBOX_SCOPES };

export const NOTE =
  " Sandbox control (decision 0148): needs the operator's key pair (`sandbox operator-key`); absent (404) when SANDBOX=off.";

/** What every control family's registrar is given: the app, the scope prefix and the request's context. */
export interface SandboxRouteKit {
  app: App;
  prefix: string;
  ctx: (request: { actor: Parameters<typeof withActor>[1] }) => ReturnType<typeof withActor>;
}

export function sandboxRouteKit(app: App, deps: Deps): SandboxRouteKit {
  return { app, prefix: deps.config.scopePrefix, ctx: (request) => withActor(deps, request.actor) };
}
