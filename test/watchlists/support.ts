import { expect } from "vitest";
import { WatchlistsResponse } from "../../src/modules/watchlists/watchlists.schemas.js";
import { type Harness, type Headers, rid } from "../support/harness.js";
import { expectSchema } from "../support/schema.js";

export const BASE = "/api/v1/watchlists";
export const AAPL = 1001;
export const TSLA = 1002;
export const MSFT = 1003;
export const NVDA = 1007;
export const BTC = 100000;
export const ETH = 100001;
export const UNKNOWN = 999_999;

export interface Item {
  itemId: number;
  itemType: string;
  itemRank: number;
  itemAddedReason: string;
  itemAddedDate: string;
  market?: { id: string; symbolName: string; assetTypeId: number };
}

export interface WatchlistBody {
  watchlistId: string;
  name: string;
  Gcid: number;
  watchlistType: string;
  totalItems: number;
  isDefault: boolean;
  isUserSelectedDefault: boolean;
  watchlistRank: number;
  dynamicUrl: string | null;
  items: Item[];
  relatedAssets: number[] | null;
  isPublic: boolean;
}

export interface ContainerBody {
  status: number;
  watchlists: WatchlistBody[];
  exception?: { invalidItems: string[]; reason: string; message: string };
  meta: { pageNumber: number; itemsPerPage: number; maxItemsInWatchlistLimit: number; maxWatchlistsLimit: number };
  isSucceeded: boolean;
}

/** Small HTTP helpers bound to one harness and one caller. */
export function client(h: Harness, headers: Headers) {
  const call = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown) =>
    h.app.inject({
      method,
      url,
      headers: { ...headers, "x-request-id": rid() },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  return {
    call,
    async list(query = ""): Promise<ContainerBody> {
      const res = await call("GET", `${BASE}${query}`);
      expect(res.statusCode).toBe(200);
      const body = res.json() as ContainerBody;
      expectSchema(WatchlistsResponse, body);
      return body;
    },
    async create(name: string, extra = ""): Promise<WatchlistBody> {
      const res = await call("POST", `${BASE}?name=${encodeURIComponent(name)}${extra}`);
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json() as ContainerBody;
      expectSchema(WatchlistsResponse, body);
      return body.watchlists[0]!;
    },
    async get(id: string, query = ""): Promise<WatchlistBody> {
      const res = await call("GET", `${BASE}/${id}${query}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as ContainerBody;
      expectSchema(WatchlistsResponse, body);
      return body.watchlists[0]!;
    },
    async add(id: string, items: unknown[]): Promise<ContainerBody> {
      const res = await call("POST", `${BASE}/${id}/items`, items);
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json() as ContainerBody;
      expectSchema(WatchlistsResponse, body);
      return body;
    },
  };
}

export const instrument = (itemId: number, extra: Record<string, unknown> = {}) => ({
  itemId,
  itemType: "Instrument",
  ...extra,
});

export const ids = (w: WatchlistBody) => w.items.map((i) => i.itemId);
