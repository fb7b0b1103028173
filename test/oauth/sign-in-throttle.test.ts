import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { systemActor } from "../../src/core/actor.js";
import { listAudit } from "../../src/modules/audit/list-audit.js";
import { withActor } from "../../src/modules/context.js";
import { runRetention } from "../../src/modules/maintenance/retention.js";
import { engines, type Harness, startHarness } from "../support/harness.js";
import { client, FORM, form, hiddenValue, PASSWORD, passwordUser, pkce } from "./support.js";

/** Ten addresses, as in issue 12 (TEST-NET-3, documentation addresses). */
const ATTACKERS = Array.from({ length: 10 }, (_, i) => `203.0.113.${i + 1}`);
const USER_ADDRESS = "198.51.100.7";
const DEVICE_COOKIE = "sta_oauth_device";

describe.each(engines())("sign-in throttle per account on %s (decision 0104)", (engine) => {
  let h: Harness;
  let now = Date.parse("2026-03-02T10:00:00.000Z");
  const wait = (seconds: number) => {
    now += seconds * 1000;
  };
  let page: { params: Record<string, string>; csrfCookie: string; csrfToken: string };

  beforeAll(async () => {
    h = await startHarness(engine, {
      clock: { now: () => new Date(now) },
      // A cap of 60 s shows the doubling stop after a few failures: 1, 2, 4, 8, 16, 32, 60, 60.
      env: { SIGNIN_MAX_DELAY_SECONDS: "60" },
    });
    const c = await client(h, { isPublic: true });
    const params = {
      response_type: "code",
      client_id: c.clientId,
      scope: "feed:read",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    };
    const res = await h.app.inject({ method: "GET", url: `/oauth/authorize?${form(params)}` });
    page = {
      params,
      csrfCookie: res.cookies.find((k) => k.name === "sta_oauth_login_csrf")!.value,
      csrfToken: hiddenValue(res.body, "csrf_token"),
    };
  });
  afterAll(async () => h.close());

  const login = (
    username: string,
    password: string,
    options: { address?: string; device?: string; app?: Harness["app"] } = {},
  ) =>
    (options.app ?? h.app).inject({
      method: "POST",
      url: "/oauth/login",
      headers: FORM,
      remoteAddress: options.address ?? USER_ADDRESS,
      cookies: {
        sta_oauth_login_csrf: page.csrfCookie,
        ...(options.device ? { [DEVICE_COOKIE]: options.device } : {}),
      },
      payload: form({ ...page.params, csrf_token: page.csrfToken, username, password }),
    });

  /** Guesses from the ten addresses in turn, waiting out every delay, until `checked` guesses were checked. */
  async function attack(username: string, checked: number) {
    const delays: number[] = [];
    let turn = 0;
    for (let done = 0; done < checked; turn++) {
      const res = await login(username, `guess-${turn}`, { address: ATTACKERS[turn % ATTACKERS.length] });
      if (res.statusCode === 401) {
        done++;
        continue;
      }
      expect(res.statusCode).toBe(429);
      const retryAfter = Number(res.headers["retry-after"]);
      delays.push(retryAfter);
      // more tries during the wait change nothing: refused, same wait, no password checked
      const again = await login(username, PASSWORD, { address: ATTACKERS[(turn + 1) % ATTACKERS.length] });
      expect(again.statusCode).toBe(429);
      expect(Number(again.headers["retry-after"])).toBe(retryAfter);
      wait(retryAfter);
    }
    return delays;
  }

  const statusesOf = async (username: string, passwords: string[], address = ATTACKERS[0]) => {
    const out: Array<[number, string | undefined]> = [];
    for (const password of passwords) {
      const res = await login(username, password, { address });
      out.push([res.statusCode, res.headers["retry-after"] as string | undefined]);
    }
    return out;
  };

  it("the issue's attack: ten addresses guess; the right password from a new address waits for the delay", async () => {
    const user = await passwordUser(h);
    const delays = await attack(user.username, 12);
    // five free failures, then 1 s doubling per failure, capped at 60 s
    expect(delays).toEqual([1, 2, 4, 8, 16, 32, 60]);
    // the twelfth failure set the cap again
    // the real password, from an address and a browser never seen: refused, not checked
    const right = await login(user.username, PASSWORD, { address: USER_ADDRESS });
    const wrong = await login(user.username, "still-guessing", { address: ATTACKERS[4] });
    for (const res of [right, wrong]) {
      expect(res.statusCode).toBe(429);
      expect(res.headers["retry-after"]).toBe("60");
      expect(res.headers["content-type"]).toContain("text/html");
      expect(res.body).toContain("Too many failed sign-ins for this account; try again in 60 seconds.");
      expect(res.body).toContain('action="/oauth/login"');
      expect(res.cookies.find((k) => k.name === "sta_oauth_session")).toBeUndefined();
    }
    // the same answer whether or not the password was right
    expect(right.body).toBe(wrong.body);
    wait(30);
    const halfway = await login(user.username, PASSWORD);
    expect(halfway.statusCode).toBe(429);
    expect(halfway.headers["retry-after"]).toBe("30");
    wait(30);
    const after = await login(user.username, PASSWORD);
    expect(after.statusCode).toBe(303);
    expect(after.cookies.find((k) => k.name === "sta_oauth_session")).toBeDefined();
  });

  it("the real user's browser that signed in before keeps signing in during the attack", async () => {
    const user = await passwordUser(h);
    const first = await login(user.username, PASSWORD);
    expect(first.statusCode).toBe(303);
    const device = first.cookies.find((k) => k.name === DEVICE_COOKIE)!;
    expect(device).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/oauth" });
    expect(device.maxAge).toBe(180 * 86_400);
    await attack(user.username, 8);
    const attacked = await login(user.username, PASSWORD, { address: ATTACKERS[0] });
    expect(attacked.statusCode).toBe(429);
    // the device cookie puts the user in their own pool: signed in at once, even from a new address
    const mine = await login(user.username, PASSWORD, { address: "192.0.2.55", device: device.value });
    expect(mine.statusCode).toBe(303);
    // which does not free the attacker's pool
    const still = await login(user.username, PASSWORD, { address: ATTACKERS[1] });
    expect(still.statusCode).toBe(429);
    // a device cookie of another account, or a forged one, counts for nothing
    const other = await passwordUser(h);
    const otherDevice = (await login(other.username, PASSWORD)).cookies.find((k) => k.name === DEVICE_COOKIE)!.value;
    const forged = `${device.value.slice(0, -3)}AAA`;
    for (const cookie of [otherDevice, forged, "d1.not.a.cookie"]) {
      expect((await login(user.username, PASSWORD, { device: cookie, address: "192.0.2.56" })).statusCode).toBe(429);
    }
  });

  it("an address the user signed in from keeps its own counter: a new browser there signs in during the attack", async () => {
    const user = await passwordUser(h);
    expect((await login(user.username, PASSWORD, { address: USER_ADDRESS })).statusCode).toBe(303);
    await attack(user.username, 8);
    // cookies cleared, same address: not the attacker's pool
    expect((await login(user.username, PASSWORD, { address: USER_ADDRESS })).statusCode).toBe(303);
    expect((await login(user.username, PASSWORD, { address: "192.0.2.57" })).statusCode).toBe(429);
    // guessing from that address spends only that address's counter
    const there = await statusesOf(user.username, ["g1", "g2", "g3", "g4", "g5", "g6"], USER_ADDRESS);
    expect(there.map(([s]) => s)).toEqual([401, 401, 401, 401, 401, 429]);
    const ctx = withActor(h.deps, systemActor("test"));
    const [last] = await listAudit(ctx, { action: "sign-in.failed", userId: user.id, limit: 1 });
    expect(last).toMatchObject({ address: USER_ADDRESS, details: { pool: "address", failures: 5 } });
  });

  it("the retention pass deletes counters whose window has passed", async () => {
    const user = await passwordUser(h);
    await statusesOf(user.username, ["r-guess-1"]);
    wait(15 * 60 + 1);
    const report = await runRetention(h.deps);
    expect(report.signInCounters).toBeGreaterThanOrEqual(1);
    // forgotten: five free failures again
    const again = await statusesOf(user.username, ["r1", "r2", "r3", "r4", "r5", "r6"]);
    expect(again.map(([s]) => s)).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it("a stolen device cookie gets its own few guesses, then waits like any other pool", async () => {
    const user = await passwordUser(h);
    const device = (await login(user.username, PASSWORD)).cookies.find((k) => k.name === DEVICE_COOKIE)!.value;
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await login(user.username, `guess${i}`, { device })).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // the account's other pool is untouched
    expect((await login(user.username, PASSWORD)).statusCode).toBe(303);
  });

  it("an unknown username is throttled exactly like a known one", async () => {
    const user = await passwordUser(h);
    const unknown = `nobody_${user.username}`;
    const guesses = Array.from({ length: 7 }, (_, i) => `guess-${i}`);
    const known = await statusesOf(user.username, guesses);
    const missing = await statusesOf(unknown, guesses);
    expect(known).toEqual([
      [401, undefined],
      [401, undefined],
      [401, undefined],
      [401, undefined],
      [401, undefined],
      [429, "1"],
      [429, "1"],
    ]);
    expect(missing).toEqual(known);
    const a = await login(user.username, "x-guess-x");
    expect(a.body).toContain("Too many failed sign-ins for this account; try again in 1 second.");
    const b = await login(unknown, "x-guess-x");
    expect(b.body.replace(unknown, "NAME")).toBe(a.body.replace(user.username, "NAME"));
    // the username is matched as sign-in matches it: another casing is the same account
    expect((await login(user.username.toUpperCase(), PASSWORD)).statusCode).toBe(429);
  });

  it("a success forgets the failures; a quiet window forgets them too", async () => {
    const user = await passwordUser(h);
    const four = Array.from({ length: 4 }, (_, i) => `guess-${i}`);
    expect((await statusesOf(user.username, four)).map(([s]) => s)).toEqual([401, 401, 401, 401]);
    expect((await login(user.username, PASSWORD)).statusCode).toBe(303);
    // five free failures again (without the reset the fifth would already set a delay)
    const five = await statusesOf(user.username, [...four, "guess-4", "guess-5"]);
    expect(five.map(([s]) => s)).toEqual([401, 401, 401, 401, 401, 429]);
    // 1 s of delay, then 15 minutes without a failure: forgotten
    wait(1 + 15 * 60);
    const fresh = await statusesOf(user.username, [...four, "guess-4", "guess-5"]);
    expect(fresh.map(([s]) => s)).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it("counters live in the store: another instance on it sees them", async () => {
    const user = await passwordUser(h);
    await statusesOf(user.username, ["a-guess-1", "a-guess-2", "a-guess-3", "a-guess-4", "a-guess-5"]);
    const other = await buildApp(h.config, h.deps);
    try {
      const res = await login(user.username, PASSWORD, { app: other });
      expect(res.statusCode).toBe(429);
      expect(res.headers["retry-after"]).toBe("1");
    } finally {
      await other.close();
    }
  });

  it("writes the audit trail: failures, the first refusal of a wait, the lock, the success; never a password", async () => {
    const user = await passwordUser(h);
    await attack(user.username, 12);
    wait(60);
    expect((await login(user.username, PASSWORD, { address: USER_ADDRESS })).statusCode).toBe(303);
    const ctx = withActor(h.deps, systemActor("test"));
    const mine = async (action: string) => (await listAudit(ctx, { action, userId: user.id, limit: 100 })).reverse();
    const failed = await mine("sign-in.failed");
    expect(failed).toHaveLength(12);
    expect(failed[0]).toMatchObject({
      outcome: "failure",
      userId: user.id,
      address: ATTACKERS[0],
      details: { username: user.username, pool: "account", failures: 1, retryAfter: 0 },
    });
    expect(failed.map((e) => e.details.retryAfter)).toEqual([0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 60, 60]);
    const delayed = await mine("sign-in.delayed");
    // one row per wait, however many attempts it refused
    expect(delayed).toHaveLength(7);
    expect(delayed[0]).toMatchObject({
      outcome: "refused",
      userId: user.id,
      details: { username: user.username, failures: 5, retryAfter: 1 },
    });
    expect(failed[5]!.details.refusedBefore).toBe(2);
    const locked = await mine("sign-in.locked");
    expect(locked).toHaveLength(1);
    expect(locked[0]).toMatchObject({ outcome: "refused", details: { failures: 11, retryAfter: 60 } });
    const [succeeded] = await mine("sign-in.succeeded");
    expect(succeeded).toMatchObject({
      outcome: "success",
      address: USER_ADDRESS,
      details: { username: user.username, pool: "account", failuresBefore: 12 },
    });
    const all = JSON.stringify(await listAudit(ctx, { limit: 1000 }));
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain("guess-");
    // an unknown username's events name no user
    await login(`ghost_${user.username}`, "a-guess");
    const [ghost] = await listAudit(ctx, { action: "sign-in.failed", limit: 1 });
    expect(ghost).toMatchObject({ userId: null, details: { username: `ghost_${user.username}` } });
  });
});
