import type { IncomingMessage } from "node:http";
import { BlockList, isIP } from "node:net";
import type { TrustProxy } from "../config.js";

/** proxy-addr's named ranges, as TRUST_PROXY accepts them. */
const NAMED: Record<string, string[]> = {
  linklocal: ["169.254.0.0/16", "fe80::/10"],
  loopback: ["127.0.0.1/8", "::1/128"],
  uniquelocal: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
};

const family = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4");

/** The socket's peer, then X-Forwarded-For from right to left (the nearest hop first). */
function chainOf(request: IncomingMessage): (string | undefined)[] {
  const chain: (string | undefined)[] = [request.socket.remoteAddress];
  const header = request.headers["x-forwarded-for"];
  if (typeof header !== "string") return chain;
  const hops = header.split(",");
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!.trim();
    if (hop !== "") chain.push(hop);
  }
  return chain;
}

function trustOf(trust: true | number | string[]): (address: string | undefined, hop: number) => boolean {
  if (trust === true) return () => true;
  if (typeof trust === "number") return (_address, hop) => hop < trust;
  const list = new BlockList();
  for (const entry of trust.flatMap((e) => NAMED[e] ?? [e])) {
    const [address = "", bits] = entry.split("/");
    if (bits === undefined) list.addAddress(address, family(address));
    else list.addSubnet(address, Number(bits), family(address));
  }
  return (address) => address !== undefined && isIP(address) !== 0 && list.check(address, family(address));
}

/**
 * The client address of a raw request (the WebSocket upgrade, which Fastify does not see) by the
 * rule of Fastify's `request.ip` under TRUST_PROXY (proxy-addr's): from the socket's peer back
 * through X-Forwarded-For, each trusted hop hands over to the address it forwarded for; the first
 * hop not trusted, or the last address, is the client. So an IP allow-list sees on the channel
 * the address it sees on the REST API.
 */
export function clientAddressResolver(trust: TrustProxy): (request: IncomingMessage) => string {
  if (trust === false) return (request) => request.socket.remoteAddress ?? "";
  const trusted = trustOf(trust);
  return (request) => {
    const chain = chainOf(request);
    let i = 0;
    while (i < chain.length - 1 && trusted(chain[i], i)) i += 1;
    return chain[i] ?? "";
  };
}
