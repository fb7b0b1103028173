import { isoNow } from "../../../core/clock.js";
import type { Deps } from "../../context.js";
import { copiesOfLeader } from "./copies-of-leader.js";

/**
 * Counts who copies `leaderUserId` now (active or paused copies, each copier once) and publishes
 * it as CopiersChanged for the people module (decision 0164). Called after a copy of them started
 * or stopped; a count, not a step, so hearing it twice or late changes nothing.
 */
export async function announceCopiers(deps: Deps, leaderUserId: string): Promise<void> {
  const copiers = new Set((await copiesOfLeader(deps, leaderUserId)).map((c) => c.copierUserId)).size;
  await deps.bus.publish([{ type: "CopiersChanged", userId: leaderUserId, copiers, occurredAt: isoNow(deps.clock) }]);
}
