import { type Static, Type } from "typebox";
import { errorResponse } from "../../http/schemas.js";

const Int32Max = 2_147_483_647;

export const ItemMarket = Type.Object(
  {
    id: Type.String({ description: "The instrument id, as text" }),
    symbolName: Type.String(),
    displayName: Type.String(),
    assetTypeId: Type.Integer({ format: "int32" }),
    assetTypeSubCategoryId: Type.Union([Type.Integer({ format: "int32" }), Type.Null()]),
    exchangeId: Type.Integer({ format: "int32" }),
    hasExpirationDate: Type.Boolean(),
    avatar: Type.Object({ small: Type.String(), medium: Type.String(), large: Type.String() }),
  },
  { description: "Market metadata of the instrument (Instrument items only)" },
);

export const WatchlistItem = Type.Object(
  {
    itemId: Type.Integer({ format: "int32", description: "Instrument id, or the gcid of a Person item" }),
    itemType: Type.String({ description: "`Instrument` or `Person`" }),
    itemRank: Type.Integer({ format: "int32", description: "Sort key within the watchlist (ascending)" }),
    itemAddedReason: Type.String({ description: "`Manual` unless the client says otherwise; `Dynamic`, `Invested`" }),
    itemAddedDate: Type.String({ format: "date-time" }),
    market: Type.Optional(ItemMarket),
  },
  { description: "A watchlist item (upstream's WatchlistItemDto)" },
);

export const Watchlist = Type.Object(
  {
    watchlistId: Type.String(),
    name: Type.String(),
    Gcid: Type.Integer({ format: "int32", description: "The owner's global customer id (capital G, as upstream)" }),
    watchlistType: Type.Union([
      Type.Literal("Static"),
      Type.Literal("Dynamic"),
      Type.Literal("RecentlyInvested"),
      Type.Literal("Default"),
    ]),
    totalItems: Type.Integer({ format: "int32" }),
    isDefault: Type.Boolean({ description: "A builtin (system) watchlist: Default or RecentlyInvested" }),
    isUserSelectedDefault: Type.Boolean({ description: "The one watchlist the user selected as their default" }),
    watchlistRank: Type.Integer({ format: "int32", description: "Display order (ascending)" }),
    dynamicUrl: Type.Union([Type.String(), Type.Null()], {
      description: "Dynamic watchlists: the market-data query whose matches are the items, computed on read",
    }),
    items: Type.Array(WatchlistItem, { description: "One page of items" }),
    relatedAssets: Type.Union([Type.Array(Type.Integer({ format: "int32" })), Type.Null()], {
      description: "Instrument ids related to the items (when `addRelatedAssets=true`), else null",
    }),
    isPublic: Type.Boolean({ description: "Extension: readable by other users through the public operations" }),
  },
  { description: "A watchlist (upstream's WatchlistResponse)" },
);

export const WatchlistsResponse = Type.Object(
  {
    status: Type.Integer({ format: "int32", description: "The HTTP status of this response" }),
    watchlists: Type.Array(Watchlist),
    exception: Type.Optional(
      Type.Object(
        {
          invalidItems: Type.Array(Type.String(), { description: "The itemId of each item that was not applied" }),
          reason: Type.String({ description: "`InvalidItems`" }),
          message: Type.String(),
        },
        { description: "Present only when some items of the request were not applied" },
      ),
    ),
    meta: Type.Object({
      pageNumber: Type.Integer({ format: "int32" }),
      itemsPerPage: Type.Integer({ format: "int32" }),
      maxItemsInWatchlistLimit: Type.Integer({ format: "int32" }),
      maxWatchlistsLimit: Type.Integer({ format: "int32" }),
    }),
    isSucceeded: Type.Boolean(),
  },
  { description: "Watchlists with metadata (upstream's WatchlistsResponse)" },
);

export const WatchlistItems = Type.Array(WatchlistItem, { description: "Items of the default watchlists" });

/** One item of a request body; property names are matched case-insensitively (src/http/json-bodies.ts). */
export const ItemRequest = Type.Object({
  itemId: Type.Integer({ format: "int32", minimum: 1, maximum: Int32Max }),
  itemType: Type.Union([Type.Literal("Instrument"), Type.Literal("Person")]),
  itemRank: Type.Optional(Type.Integer({ format: "int32", minimum: 0, maximum: Int32Max })),
  itemAddedReason: Type.Optional(Type.String({ maxLength: 50 })),
  itemAddedDate: Type.Optional(Type.String({ description: "Ignored: the server records when" })),
  market: Type.Optional(Type.Unknown({ description: "Ignored: read from the catalog" })),
});
export type ItemRequest = Static<typeof ItemRequest>;

export const ItemsBody = Type.Array(ItemRequest, {
  minItems: 1,
  description: "A JSON array of items; property names in any casing (`itemId`, `ItemId`, `ItemID`)",
});

const itemsPerPage = Type.Integer({
  format: "int32",
  minimum: 1,
  maximum: 1000,
  default: 100,
  description: "Items per page, 1 to 1000",
});
const pageNumber = Type.Integer({
  format: "int32",
  minimum: 0,
  maximum: Int32Max,
  default: 0,
  description: "Page number, from 0",
});

export const ListQuery = Type.Object({
  itemsPerPageForSingle: Type.Integer({
    format: "int32",
    minimum: 1,
    maximum: 1000,
    default: 100,
    description: "Items included per watchlist, 1 to 1000",
  }),
  ensureBuiltinWatchlists: Type.Boolean({ default: true, description: "Create the builtin watchlists if missing" }),
  addRelatedAssets: Type.Boolean({ default: false, description: "Fill `relatedAssets`" }),
});

export const PublicListQuery = Type.Object({
  itemsPerPageForSingle: Type.Integer({
    format: "int32",
    minimum: 1,
    maximum: 1000,
    default: 100,
    description: "Items included per watchlist, 1 to 1000",
  }),
});

export const PageQuery = Type.Object({ pageNumber, itemsPerPage });

export const DefaultItemsQuery = Type.Object({
  itemsLimit: Type.Optional(
    Type.Integer({ format: "int32", minimum: 1, maximum: Int32Max, description: "Most items to return" }),
  ),
  itemsPerPage,
});

export const CreateQuery = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: "Name, 1 to 100 characters" }),
  type: Type.Union([Type.Literal("Static"), Type.Literal("Dynamic")], { default: "Static" }),
  dynamicQuery: Type.Optional(
    Type.String({
      maxLength: 500,
      description:
        "Dynamic only: a market-data search, e.g. `searchText=tech` or `/api/v1/market-data/search?assetType=Crypto`; " +
        "parameters searchText, assetType, assetTypeId, assetTypeSubCategoryId, exchangeId",
    }),
  ),
  isPublic: Type.Optional(Type.Boolean({ description: "Extension: publish at once (default false)" })),
});

export const RenameQuery = Type.Object({ newName: Type.String({ minLength: 1, maxLength: 100 }) });
export const RankQuery = Type.Object({ newRank: Type.Integer({ format: "int32", minimum: 0, maximum: Int32Max }) });
export const VisibilityQuery = Type.Object({
  isPublic: Type.Boolean({ description: "true publishes the watchlist, false hides it" }),
});

export const WatchlistParams = Type.Object({ watchlistId: Type.String({ minLength: 1, maxLength: 100 }) });
export const PublicUserParams = Type.Object({
  userId: Type.Integer({ format: "int32", minimum: 1, maximum: Int32Max, description: "The owner's gcid" }),
});
export const PublicWatchlistParams = Type.Object({
  userId: Type.Integer({ format: "int32", minimum: 1, maximum: Int32Max, description: "The owner's gcid" }),
  watchlistId: Type.String({ minLength: 1, maxLength: 100 }),
});

/** 404 of every operation on one of the caller's watchlists. */
export const WatchlistNotFound = errorResponse(404, "No such watchlist of yours (another user's is never revealed)");
/** 409 of the writes a builtin or Dynamic watchlist refuses. */
export const WatchlistConflict = errorResponse(409, "A builtin or computed watchlist cannot be changed this way");
