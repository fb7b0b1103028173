import { type Deps, transact } from "../context.js";
import { peopleRepository } from "./people.repository.js";

/**
 * The people module hears copy trading through events only (it sits below it): a copy started or
 * stopped tells the copied user's copiers, kept for the stats and the search's `copiers` sort
 * (decision 0164). Runs after the copy's commit, once, in the instance that published it.
 */
export function registerPeopleSubscribers(deps: Deps): void {
  deps.bus.subscribe("CopiersChanged", async (event) => {
    await transact(deps, (trx) => peopleRepository(trx).setCopiers(event.userId, event.copiers, event.occurredAt));
  });
}
