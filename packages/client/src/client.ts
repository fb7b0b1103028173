import createFetchClient, { type Client, type MaybeOptionalInit, type Middleware } from "openapi-fetch";
import { type Auth, authFor, type Credentials } from "./credentials.js";
import { ApiError } from "./errors.js";
import type { paths } from "./generated/schema.js";
import { type RetryOptions, transport } from "./transport.js";

export interface ClientOptions {
  /** The server, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** A key pair, or a bearer token (refreshed through the token endpoint when it has a refresh token). */
  credentials?: Credentials;
  retry?: RetryOptions;
  /** The fetch to send with (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** Makes the x-request-id of a call that brings none (default: a random UUID). */
  requestId?: () => string;
  /** Headers sent on every call. */
  headers?: Record<string, string>;
}

type JsonOf<R> = R extends { content: { "application/json": infer D } } ? D : never;
/** The 200 body of GET `P`. */
export type GetData<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } }
  ? JsonOf<R>
  : never;
/** The GET operations whose answer links to the next page in `paging.next`. */
export type PagedPath = {
  [P in keyof paths]: GetData<P> extends { paging: { next: string } } ? P : never;
}[keyof paths];

export interface SocialTradingClient {
  /**
   * The generated, typed client (openapi-fetch): `api.GET("/api/v1/me")`. A call resolves with
   * `{ data, response }` on 2xx and rejects with an ApiError otherwise.
   */
  api: Client<paths>;
  /** The credential in use (the real-time client can share it, refreshed token included). */
  auth: Auth | undefined;
  /**
   * Every page of a paged read, following `paging.next` until it is empty:
   * `for await (const page of client.pages("/api/v1/feeds/for-you", { params: { query: { take: 20 } } }))`.
   */
  pages<P extends PagedPath>(
    path: P,
    init?: MaybeOptionalInit<paths[P], "get">,
  ): AsyncGenerator<GetData<P>, void, undefined>;
}

/** A call's data: `const me = await ok(client.api.GET("/api/v1/me"))`. */
export async function ok<R extends { data?: unknown }>(call: Promise<R>): Promise<Exclude<R["data"], undefined>> {
  const { data } = await call;
  return data as Exclude<R["data"], undefined>;
}

/** Rejects every non-2xx answer with the server's error as an ApiError. */
const throwOnError: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await ApiError.of(response);
    return undefined;
  },
};

export function createClient(options: ClientOptions): SocialTradingClient {
  const baseUrl = options.baseUrl.replace(/\/$/, "");
  const baseFetch = options.fetch ?? globalThis.fetch;
  const auth = options.credentials ? authFor(options.credentials, baseUrl, baseFetch) : undefined;
  const send = transport({
    auth,
    retry: options.retry,
    fetch: (request) => baseFetch(request),
    newRequestId: options.requestId ?? (() => globalThis.crypto.randomUUID()),
  });
  const api = createFetchClient<paths>({ baseUrl, fetch: send, headers: options.headers });
  api.use(throwOnError);

  /** GET of a link the server gave (`paging.next`), through the same transport. */
  const follow = async (link: string): Promise<unknown> => {
    const url = link.startsWith("/") ? `${baseUrl}${link}` : new URL(link, `${baseUrl}/`).toString();
    const response = await send(new Request(url, { headers: { accept: "application/json", ...options.headers } }));
    if (!response.ok) throw await ApiError.of(response);
    return response.json();
  };

  return {
    api,
    auth,
    async *pages(path, init) {
      // biome-ignore lint/suspicious/noExplicitAny: the paged paths share one call shape, not one type
      let page = (await ok(api.GET(path as any, init as any))) as { paging?: { next?: string } };
      for (;;) {
        yield page as GetData<typeof path>;
        const next = page.paging?.next;
        if (!next) return;
        page = (await follow(next)) as { paging?: { next?: string } };
      }
    },
  };
}
