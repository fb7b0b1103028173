import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueDemoCredentials, seedDemoWorld } from "../../src/seed/seed.js";
import { engines, type Harness, startHarness } from "../support/harness.js";
import { BASE, type ContainerBody, client } from "./support.js";

describe.each(engines())("seeded watchlists on %s", (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine);
  });
  afterAll(async () => h.close());

  it("gives the demo users watchlists, public ones readable by others, once", async () => {
    const first = await seedDemoWorld(h.deps);
    expect(first.created).toContain("demo");
    const reader = await h.user(["watchlist:read"]);
    const api = client(h, reader.headers);

    const demoPublic = (await api.call("GET", `${BASE}/public/${first.demoUser.gcid}`)).json() as ContainerBody;
    expect(demoPublic.watchlists.map((w) => [w.name, w.totalItems, w.Gcid])).toEqual([
      ["Tech giants", 5, first.demoUser.gcid],
    ]);
    expect(demoPublic.watchlists[0]!.items[0]!.market?.symbolName).toBe("AAPL");

    const key = await issueDemoCredentials(h.deps, "test");
    const demo = client(h, { "x-api-key": key.apiKey, "x-user-key": key.userKey });
    const own = await demo.list();
    expect(own.watchlists.map((w) => [w.name, w.watchlistType, w.isPublic])).toEqual([
      ["My Watchlist", "Default", false],
      ["Recently Invested", "RecentlyInvested", false],
      ["Tech giants", "Static", true],
      ["All crypto", "Dynamic", false],
    ]);
    expect(own.watchlists[0]!.items.map((i) => i.market?.symbolName)).toEqual(["AAPL", "TSLA", "BTC", "EURUSD"]);

    // The second seed run is not shown; the second seed run adds nothing.
    const again = await seedDemoWorld(h.deps);
    expect(again.created).toEqual([]);
    const demoAgain = (await api.call("GET", `${BASE}/public/${first.demoUser.gcid}`)).json() as ContainerBody;
    expect(demoAgain.watchlists.length).toBe(1);
  });
});
