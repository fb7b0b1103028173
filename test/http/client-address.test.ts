import type { IncomingMessage } from "node:http";
import fc from "fast-check";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import type { TrustProxy } from "../../src/config.js";
import { clientAddressResolver } from "../../src/http/client-address.js";
import { trustProxyOption } from "../../src/http/rate-limit.js";

const ADDRESSES = [
  "127.0.0.1",
  "10.1.2.3",
  "192.168.0.7",
  "172.16.5.4",
  "169.254.1.1",
  "203.0.113.9",
  "::1",
  "::ffff:127.0.0.1",
  "::ffff:203.0.113.9",
  "2001:db8::1",
  "fe80::1",
  "fd00::5",
  "unknown",
];
const TRUSTED = ["loopback", "linklocal", "uniquelocal", "10.0.0.0/8", "203.0.113.9", "2001:db8::/32", "127.0.0.1"];

const trust: fc.Arbitrary<TrustProxy> = fc.oneof(
  fc.boolean(),
  fc.integer({ min: 0, max: 4 }),
  fc.uniqueArray(fc.constantFrom(...TRUSTED), { minLength: 1, maxLength: 3 }),
);
const forwarded = fc.option(
  fc
    .array(fc.tuple(fc.constantFrom(...ADDRESSES), fc.constantFrom("", " ", "  ")), { minLength: 1, maxLength: 4 })
    .map((hops) => hops.map(([a, space]) => `${space}${a}`).join(",")),
  { nil: undefined },
);

/** What Fastify's `request.ip` says for the same peer and header under the same TRUST_PROXY. */
async function fastifyIp(setting: TrustProxy, remoteAddress: string, xff: string | undefined): Promise<string> {
  const app = Fastify({ trustProxy: trustProxyOption(setting) });
  app.get("/", async (request) => ({ ip: request.ip }));
  const res = await app.inject({
    url: "/",
    remoteAddress,
    headers: xff === undefined ? {} : { "x-forwarded-for": xff },
  });
  await app.close();
  return (res.json() as { ip: string }).ip;
}

describe("the client address of a WebSocket upgrade", () => {
  it("is Fastify's request.ip for the same peer, X-Forwarded-For and TRUST_PROXY (property)", async () => {
    await fc.assert(
      fc.asyncProperty(trust, fc.constantFrom(...ADDRESSES.slice(0, -1)), forwarded, async (setting, peer, xff) => {
        const request = {
          socket: { remoteAddress: peer },
          headers: xff === undefined ? {} : { "x-forwarded-for": xff },
        } as unknown as IncomingMessage;
        expect(clientAddressResolver(setting)(request)).toBe(await fastifyIp(setting, peer, xff));
      }),
      { numRuns: 300 },
    );
  });

  it("believes X-Forwarded-For only from trusted proxies", () => {
    const request = (peer: string, xff: string) =>
      ({ socket: { remoteAddress: peer }, headers: { "x-forwarded-for": xff } }) as unknown as IncomingMessage;
    expect(clientAddressResolver(false)(request("127.0.0.1", "10.1.2.3"))).toBe("127.0.0.1");
    expect(clientAddressResolver(["loopback"])(request("127.0.0.1", "10.1.2.3"))).toBe("10.1.2.3");
    expect(clientAddressResolver(["loopback"])(request("203.0.113.9", "10.1.2.3"))).toBe("203.0.113.9");
    // A client cannot push its own address through a trusted proxy's header: the nearest untrusted hop wins.
    expect(clientAddressResolver(["loopback"])(request("127.0.0.1", "10.1.2.3, 198.51.100.4"))).toBe("198.51.100.4");
    expect(clientAddressResolver(1)(request("127.0.0.1", "10.1.2.3, 198.51.100.4"))).toBe("198.51.100.4");
    expect(clientAddressResolver(2)(request("127.0.0.1", "10.1.2.3, 198.51.100.4"))).toBe("10.1.2.3");
  });
});
