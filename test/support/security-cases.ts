import {
  type AcceptedScopes,
  ANY_AUTHENTICATED,
  namedScopes,
  OPERATOR_SCOPE,
  type Scope,
} from "../../src/core/scopes.js";

/**
 * The shared security suite's cases: one entry per route of the app, written by hand as the
 * policy the tests hold the routes to. test/security/*.test.ts run the suite for every entry;
 * test/security/coverage.test.ts fails when a registered route has no entry (or an entry no route),
 * or when an entry's scopes differ from what the route declares. A new route needs an entry here.
 */

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

/** A route that declares `config.access`: the full suite (401s, 403 with details, 429, admission). */
export interface SecuredCase {
  /** `METHOD path` exactly as the route is declared (`:param` placeholders). */
  route: `${Method} ${string}`;
  /** The scopes the operation accepts (any-of), or ANY_AUTHENTICATED. */
  scopes: AcceptedScopes;
  /** Anonymous callers get an answer (the public view) instead of a 401. */
  auth?: "optional";
  /** Appended to the path, `?name=value`. */
  query?: string;
  payload?: unknown;
  /** Sent with every call of the case (a cookie, a form's content type). */
  headers?: Record<string, string>;
  /** `page`: the route answers with HTML pages (OAuth sign-in), so refusals are checked by status. */
  answers?: "page";
}

/** A route that declares no `config.access`, and why that is right for it. */
export interface PublicCase {
  route: `${Method} ${string}`;
  public: string;
}

export type SecurityCase = SecuredCase | PublicCase;

export const isPublic = (c: SecurityCase): c is PublicCase => "public" in c;

/** The value each path parameter takes in the suite's requests; ids of things that do not exist. */
const EXAMPLE_PARAMS: Record<string, string> = {
  postId: "00000000-0000-4000-8000-000000000001",
  commentId: "00000000-0000-4000-8000-000000000002",
  replyId: "00000000-0000-4000-8000-000000000003",
  entityId: "00000000-0000-4000-8000-000000000001",
  watchlistId: "00000000-0000-4000-8000-000000000004",
  pollId: "1",
  optionId: "1",
  userId: "1",
  gcid: "1",
  marketId: "1001",
  instrumentId: "1001",
  direction: "asc",
  interval: "OneMinute",
  candlesCount: "10",
  symbol: "AAPL",
  shortener: "summary",
  itemsCount: "10",
  positionId: "1",
  orderId: "1",
  alertId: "00000000-0000-4000-8000-000000000000",
  agentPortfolioId: "00000000-0000-4000-8000-000000000005",
  mirrorId: "999999",
  userTokenId: "00000000-0000-4000-8000-000000000006",
  username: "nobody",
  granularity: "daily",
  user: "nobody-at-all",
  faultId: "00000000-0000-4000-8000-000000000005",
  file: "nothing.svg",
  "*": "nothing",
};

export const methodOf = (c: SecurityCase) => c.route.slice(0, c.route.indexOf(" ")) as Method;
export const pathOf = (c: SecurityCase) => c.route.slice(c.route.indexOf(" ") + 1);

/** The request URL of a case: its path with every parameter filled in, then its query. */
export function urlOf(c: SecurityCase): string {
  const path = pathOf(c).replace(/::|:(\w+)|\*/g, (match, name: string | undefined) => {
    // `::` is Fastify's escape of a literal ':' (orders:lookup).
    if (match === "::") return ":";
    const value = EXAMPLE_PARAMS[name ?? "*"];
    if (value === undefined) throw new Error(`security-cases: no example value for ${match} in ${c.route}`);
    return value;
  });
  return `${path.startsWith("/") ? "" : "/"}${path}${isPublic(c) ? "" : (c.query ?? "")}`;
}

const FEED_READ: AcceptedScopes = ["feed:read"];
const FEED_WRITE: AcceptedScopes = ["feed:write"];
const TRADE: AcceptedScopes = ["trade.demo:write", "demo:write"];
const TRADE_READ: AcceptedScopes = ["trade.demo:read", "demo:read", "trade.demo:write", "demo:write"];
const WATCHLIST_READ: AcceptedScopes = [
  "watchlist:read",
  "watchlist:write",
  "demo:read",
  "demo:write",
  "real:read",
  "real:write",
];
const WATCHLIST_WRITE: AcceptedScopes = ["watchlist:write", "demo:write", "real:write"];
const MARKET_DATA: AcceptedScopes = [
  "trade.demo:read",
  "trade.demo:write",
  "demo:read",
  "demo:write",
  "trade.real:read",
  "trade.real:write",
  "real:read",
  "real:write",
  "watchlist:read",
  "watchlist:write",
];

const WATCHLIST_ITEMS = [{ itemId: 1001, itemType: "Instrument" }];
const POLL = {
  message: "m",
  poll: {
    title: "t",
    options: [
      { text: "a", index: 1 },
      { text: "b", index: 2 },
    ],
  },
};
const MESSAGE = { message: "x" };

const social = (scopes: AcceptedScopes, routes: SecuredCase["route"][]): SecuredCase[] =>
  routes.map((route) => ({ route, scopes }));

/** The POST that sets a mark and the DELETE that takes it back. */
const onAndOff = (path: string): SecuredCase["route"][] => [`POST ${path}`, `DELETE ${path}`];

const OPERATOR: AcceptedScopes = [OPERATOR_SCOPE];

/** The sandbox's controls (decision 0148): the operator's scope only; payloads that do little. */
const SANDBOX: SecurityCase[] = [
  { route: "GET /sandbox/v1/market", scopes: OPERATOR },
  { route: "POST /sandbox/v1/market/step", scopes: OPERATOR, payload: { ticks: 1 } },
  { route: "POST /sandbox/v1/market/pause", scopes: OPERATOR, payload: { instrumentIds: [999999] } },
  { route: "POST /sandbox/v1/market/resume", scopes: OPERATOR, payload: { instrumentIds: [999999] } },
  { route: "GET /sandbox/v1/prices/:instrumentId", scopes: OPERATOR },
  { route: "PUT /sandbox/v1/prices/:instrumentId", scopes: OPERATOR, payload: { bid: 10, ask: 9 } },
  { route: "POST /sandbox/v1/prices/:instrumentId/path", scopes: OPERATOR, payload: { prices: [1], csv: "1" } },
  { route: "GET /sandbox/v1/clock", scopes: OPERATOR },
  { route: "PUT /sandbox/v1/clock", scopes: OPERATOR, payload: { at: "not a date" } },
  { route: "POST /sandbox/v1/clock/advance", scopes: OPERATOR, payload: { seconds: 0 } },
  { route: "DELETE /sandbox/v1/clock", scopes: OPERATOR },
  { route: "PUT /sandbox/v1/accounts/:user/balance", scopes: OPERATOR, payload: { balance: 1 } },
  { route: "DELETE /sandbox/v1/accounts/:user/balance", scopes: OPERATOR },
  { route: "POST /sandbox/v1/accounts/:user/close-positions", scopes: OPERATOR },
  { route: "POST /sandbox/v1/accounts/:user/reset", scopes: OPERATOR },
  { route: "POST /sandbox/v1/world/reset", scopes: OPERATOR, payload: { snapshot: "no-such-snapshot" } },
  { route: "GET /sandbox/v1/world/snapshots", scopes: OPERATOR },
  { route: "POST /sandbox/v1/world/snapshots", scopes: OPERATOR, payload: { name: "not a name" } },
  { route: "GET /sandbox/v1/faults", scopes: OPERATOR },
  { route: "POST /sandbox/v1/faults", scopes: OPERATOR, payload: { operation: "*", kind: "429" } },
  { route: "DELETE /sandbox/v1/faults", scopes: OPERATOR },
  { route: "DELETE /sandbox/v1/faults/:faultId", scopes: OPERATOR },
  { route: "POST /sandbox/v1/traders/trade", scopes: OPERATOR },
];

const IDENTITY: SecurityCase[] = [
  { route: "GET /api/v1/me", scopes: ANY_AUTHENTICATED },
  { route: "GET /api/v1/clubs", scopes: ["club:read"] },
];

const PRICE_ALERTS: SecurityCase[] = [
  { route: "GET /api/v1/price-alerts", scopes: ["price-alerts:read", "price-alerts:write"] },
  { route: "POST /api/v1/price-alerts", scopes: ["price-alerts:write"], payload: { symbol: "AAPL", targetPrice: 1 } },
  { route: "PATCH /api/v1/price-alerts/:alertId", scopes: ["price-alerts:write"], payload: { targetPrice: 1 } },
  { route: "DELETE /api/v1/price-alerts/:alertId", scopes: ["price-alerts:write"] },
  { route: "GET /api/v1/agent-portfolios", scopes: ["agent-portfolio:read", "agent-portfolio:write"] },
  {
    route: "POST /api/v1/agent-portfolios",
    scopes: ["agent-portfolio:write"],
    payload: { investmentAmountInUsd: 500, agentPortfolioName: "Secure1", userTokenName: "t", scopeIds: [201] },
  },
  {
    route: "POST /api/v2/agent-portfolios",
    scopes: ["agent-portfolio:write"],
    payload: {
      investmentAmountInUsd: 500,
      agentPortfolioName: "Secure2",
      userTokenName: "t",
      scopeNames: ["trade.demo:read"],
    },
  },
  { route: "DELETE /api/v1/agent-portfolios/:agentPortfolioId", scopes: ["agent-portfolio:write"] },
  {
    route: "POST /api/v1/agent-portfolios/:agentPortfolioId/user-tokens",
    scopes: ["agent-portfolio:write"],
    payload: { userTokenName: "t", scopeIds: [201] },
  },
  {
    route: "POST /api/v2/agent-portfolios/:agentPortfolioId/user-tokens",
    scopes: ["agent-portfolio:write"],
    payload: { userTokenName: "t", scopeNames: ["trade.demo:read"] },
  },
  {
    route: "PATCH /api/v1/agent-portfolios/:agentPortfolioId/user-tokens/:userTokenId",
    scopes: ["agent-portfolio:write"],
    payload: { scopeIds: [201] },
  },
  {
    route: "PATCH /api/v2/agent-portfolios/:agentPortfolioId/user-tokens/:userTokenId",
    scopes: ["agent-portfolio:write"],
    payload: { scopeNames: ["trade.demo:read"] },
  },
  {
    route: "DELETE /api/v1/agent-portfolios/:agentPortfolioId/user-tokens/:userTokenId",
    scopes: ["agent-portfolio:write"],
  },
  { route: "GET /api/v1/pi-data/copiers", scopes: ["pi-data:read"] },
  {
    route: "GET /api/v1/copy-trading/copies",
    scopes: ["trade.demo:read", "demo:read", "trade.demo:write", "demo:write"],
  },
  {
    route: "POST /api/v1/copy-trading/copies",
    scopes: ["trade.demo:write", "demo:write"],
    payload: { username: "nobody-here", amount: 500 },
  },
  {
    route: "POST /api/v1/copy-trading/copies/:mirrorId/funds",
    scopes: ["trade.demo:write", "demo:write"],
    payload: { amount: 10 },
  },
  { route: "POST /api/v1/copy-trading/copies/:mirrorId/pause", scopes: ["trade.demo:write", "demo:write"] },
  { route: "POST /api/v1/copy-trading/copies/:mirrorId/resume", scopes: ["trade.demo:write", "demo:write"] },
  { route: "DELETE /api/v1/copy-trading/copies/:mirrorId", scopes: ["trade.demo:write", "demo:write"] },
  {
    route: "GET /api/v2/agent-portfolios/user-tokens/scopes",
    scopes: ["agent-portfolio:read", "agent-portfolio:write"],
  },
];

/** A multipart body whose `file` is not an image: admitted callers get a 422, never a 401/403. */
const MEDIA: SecurityCase[] = [
  {
    route: "POST /api/v1/attachments",
    scopes: FEED_WRITE,
    headers: { "content-type": "multipart/form-data; boundary=sta" },
    payload:
      '--sta\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n' +
      "not an image\r\n--sta--\r\n",
  },
  { route: "GET /api/v1/media/:file", public: "an <img> cannot send credentials; the posts showing it are public" },
];

const NOTIFICATIONS: SecurityCase[] = [
  { route: "GET /api/v1/notifications/messages", scopes: ["notifications:read"] },
  { route: "PATCH /api/v1/notifications/messages", scopes: ["notifications:write"] },
];

const MARKET: SecurityCase[] = [
  { route: "GET /api/v1/market-data/instruments/rates", scopes: MARKET_DATA, query: "?instrumentIds=1001" },
  { route: "GET /api/v1/market-data/instruments", scopes: MARKET_DATA },
  { route: "GET /api/v1/market-data/search", scopes: MARKET_DATA, query: "?searchText=a" },
  {
    route: "GET /api/v1/market-data/instruments/:instrumentId/history/candles/:direction/:interval/:candlesCount",
    scopes: MARKET_DATA,
  },
  { route: "GET /api/v1/market-data/exchanges", scopes: MARKET_DATA },
  { route: "GET /api/v1/market-data/instrument-types", scopes: MARKET_DATA },
  { route: "GET /api/v1/market-data/stocks-industries", scopes: MARKET_DATA },
  { route: "GET /api/v1/market-data/instruments/history/closing-price", scopes: MARKET_DATA },
  { route: "GET /api/v1/instruments/discover", scopes: MARKET_DATA, query: "?instrumentTypeID=5&sort=-marketCap" },
  { route: "GET /api/v1/instruments/:symbol", scopes: MARKET_DATA },
  { route: "GET /api/v1/instruments/:symbol/:shortener", scopes: MARKET_DATA },
];

const TRADING: SecurityCase[] = [
  {
    route: "POST /api/v1/trading/execution/demo/market-open-orders/by-amount",
    scopes: TRADE,
    payload: { InstrumentID: 1001, IsBuy: true, Leverage: 1, Amount: 1000 },
  },
  {
    route: "POST /api/v1/trading/execution/demo/market-open-orders/by-units",
    scopes: TRADE,
    payload: { InstrumentID: 1001, IsBuy: true, Leverage: 1, AmountInUnits: 1 },
  },
  {
    route: "POST /api/v1/trading/execution/demo/market-close-orders/positions/:positionId",
    scopes: TRADE,
    payload: { InstrumentID: 1001 },
  },
  { route: "GET /api/v1/trading/info/demo/portfolio", scopes: TRADE_READ },
  { route: "GET /api/v1/trading/info/demo/pnl", scopes: TRADE_READ },
  { route: "GET /api/v1/trading/info/demo/aggregate-portfolio", scopes: TRADE_READ },
  { route: "GET /api/v1/trading/info/demo/orders/:orderId", scopes: TRADE_READ },
  { route: "GET /api/v1/trading/info/trade/demo/history", scopes: TRADE_READ },
  {
    route: "POST /api/v2/trading/execution/demo/orders",
    scopes: TRADE,
    payload: { action: "open", transaction: "buy", instrumentId: 1001, leverage: 1, amount: 100 },
  },
  { route: "DELETE /api/v2/trading/execution/demo/orders/:orderId", scopes: TRADE },
  { route: "GET /api/v2/trading/info/demo/orders::lookup", scopes: TRADE_READ, query: "?orderId=1" },
  {
    route: "POST /api/v1/trading/execution/demo/limit-orders",
    scopes: TRADE,
    payload: { InstrumentID: 1001, IsBuy: true, Leverage: 1, Amount: 100, Rate: 1 },
  },
  { route: "DELETE /api/v1/trading/execution/demo/limit-orders/:orderId", scopes: TRADE },
  { route: "DELETE /api/v1/trading/execution/demo/market-open-orders/:orderId", scopes: TRADE },
  { route: "DELETE /api/v1/trading/execution/demo/market-close-orders/:orderId", scopes: TRADE },
  {
    route: "PATCH /api/v2/trading/execution/demo/positions/:positionId",
    scopes: TRADE,
    payload: { stopLossRate: null },
  },
  {
    route: "POST /api/v2/trading/info/demo/costs",
    scopes: TRADE_READ,
    payload: { action: "open", transaction: "buy", instrumentId: 1001, leverage: 1, amount: 100 },
  },
  { route: "POST /api/v2/trading/info/demo/eligibility", scopes: TRADE_READ, payload: { instrumentIds: [1001] } },
  { route: "POST /api/v1/trading/info/demo/eligibility", scopes: TRADE_READ, payload: { instrumentIds: [1001] } },
];

const WATCHLISTS: SecurityCase[] = [
  { route: "GET /api/v1/watchlists", scopes: WATCHLIST_READ },
  { route: "GET /api/v1/curated-lists", scopes: WATCHLIST_READ },
  { route: "GET /api/v1/market-recommendations/:itemsCount", scopes: WATCHLIST_READ },
  { route: "GET /api/v1/watchlists/:watchlistId", scopes: WATCHLIST_READ },
  { route: "GET /api/v1/watchlists/public/:userId", scopes: WATCHLIST_READ },
  { route: "GET /api/v1/watchlists/public/:userId/:watchlistId", scopes: WATCHLIST_READ },
  { route: "GET /api/v1/watchlists/default-watchlists/items", scopes: WATCHLIST_READ },
  { route: "POST /api/v1/watchlists", scopes: WATCHLIST_WRITE, query: "?name=Sec" },
  { route: "POST /api/v1/watchlists/newasdefault-watchlist", scopes: WATCHLIST_WRITE, query: "?name=Sec" },
  { route: "PUT /api/v1/watchlists/:watchlistId", scopes: WATCHLIST_WRITE, query: "?newName=X" },
  { route: "DELETE /api/v1/watchlists/:watchlistId", scopes: WATCHLIST_WRITE },
  { route: "POST /api/v1/watchlists/:watchlistId/items", scopes: WATCHLIST_WRITE, payload: WATCHLIST_ITEMS },
  { route: "PUT /api/v1/watchlists/:watchlistId/items", scopes: WATCHLIST_WRITE, payload: WATCHLIST_ITEMS },
  { route: "DELETE /api/v1/watchlists/:watchlistId/items", scopes: WATCHLIST_WRITE, payload: WATCHLIST_ITEMS },
  { route: "PUT /api/v1/watchlists/rank/:watchlistId", scopes: WATCHLIST_WRITE, query: "?newRank=3" },
  { route: "PUT /api/v1/watchlists/setUserSelectedUserDefault/:watchlistId", scopes: WATCHLIST_WRITE },
  {
    route: "POST /api/v1/watchlists/default-watchlist/selected-items",
    scopes: WATCHLIST_WRITE,
    payload: WATCHLIST_ITEMS,
  },
  { route: "PUT /api/v1/watchlists/:watchlistId/visibility", scopes: WATCHLIST_WRITE, query: "?isPublic=true" },
];

const SOCIAL_POSTS: SecurityCase[] = [
  { route: "POST /api/v1/feeds/post", scopes: FEED_WRITE, payload: { message: "hello" } },
  { route: "POST /api/v1/posts", scopes: FEED_WRITE, payload: { message: "hello" } },
  { route: "POST /api/v1/posts/polls", scopes: FEED_WRITE, payload: POLL },
  { route: "GET /api/v1/posts/:postId", scopes: FEED_READ, auth: "optional" },
  { route: "PUT /api/v1/posts/:postId", scopes: FEED_WRITE, payload: MESSAGE },
  { route: "DELETE /api/v1/posts/:postId", scopes: FEED_WRITE },
  ...social(FEED_WRITE, onAndOff("/api/v1/posts/:postId/polls/:pollId/options/:optionId/votes")),
  {
    route: "POST /api/v1/posts/shares",
    scopes: FEED_WRITE,
    payload: { message: "", sharedOriginDiscussion: EXAMPLE_PARAMS.postId },
  },
  { route: "GET /api/v1/posts/:postId/shares", scopes: FEED_READ },
];

const SOCIAL_FEEDS: SecurityCase[] = social(FEED_READ, [
  "GET /api/v1/feeds/saved",
  "GET /api/v1/feeds/instrument/:marketId",
  "GET /api/v1/feeds/markets/:marketId",
  "GET /api/v1/feeds/user/:userId",
  "GET /api/v1/feeds/users/:userId",
  "GET /api/v1/feeds/users/:userId/pinned",
  "GET /api/v1/feeds/following",
  "GET /api/v1/feeds/for-you",
  "GET /api/v1/feeds/news",
]);

const SOCIAL_INTERACTIONS: SecurityCase[] = [
  ...social(
    FEED_WRITE,
    ["likes", "saves", "pins", "follows"].flatMap((m) => onAndOff(`/api/v1/posts/:postId/${m}`)),
  ),
  { route: "GET /api/v1/posts/:postId/comments", scopes: FEED_READ },
  { route: "POST /api/v1/posts/:postId/comments", scopes: FEED_WRITE, payload: MESSAGE },
  { route: "POST /api/v1/reactions/:postId/comment", scopes: FEED_WRITE, payload: MESSAGE },
  { route: "PUT /api/v1/posts/:postId/comments/:commentId", scopes: FEED_WRITE, payload: MESSAGE },
  { route: "DELETE /api/v1/posts/:postId/comments/:commentId", scopes: FEED_WRITE },
  ...social(FEED_WRITE, onAndOff("/api/v1/posts/:postId/comments/:commentId/likes")),
  { route: "GET /api/v1/posts/:postId/comments/:commentId/replies", scopes: FEED_READ },
  { route: "POST /api/v1/posts/:postId/comments/:commentId/replies", scopes: FEED_WRITE, payload: MESSAGE },
  {
    route: "PUT /api/v1/posts/:postId/comments/:commentId/replies/:replyId",
    scopes: FEED_WRITE,
    payload: MESSAGE,
  },
  { route: "DELETE /api/v1/posts/:postId/comments/:commentId/replies/:replyId", scopes: FEED_WRITE },
  ...social(FEED_WRITE, onAndOff("/api/v1/posts/:postId/comments/:commentId/replies/:replyId/likes")),
  { route: "GET /api/v1/reactions/:entityId/emotions", scopes: FEED_READ },
  ...social(FEED_WRITE, [...onAndOff("/api/v1/users/:userId/follows"), ...onAndOff("/api/v1/users/:userId/blocks")]),
  { route: "GET /api/v1/social/trade-posts", scopes: FEED_READ },
  { route: "PUT /api/v1/social/trade-posts", scopes: FEED_WRITE, payload: { enabled: false } },
];

const OAUTH: SecurityCase[] = [
  {
    route: "POST /oauth/login",
    scopes: ANY_AUTHENTICATED,
    auth: "optional",
    answers: "page",
    // Past the form's CSRF check (cookie = field), so the answer is the page's own (400: no client).
    headers: { cookie: "sta_oauth_login_csrf=t", "content-type": "application/x-www-form-urlencoded" },
    payload: "csrf_token=t",
  },
  ...(
    [
      ["GET /.well-known/oauth-authorization-server", "OAuth server metadata (RFC 8414): public by definition"],
      ["GET /oauth/jwks", "the token signing keys (RFC 7517): public by definition"],
      ["GET /oauth/authorize", "the sign-in and consent page: the user signs in with a password, not API credentials"],
      ["POST /oauth/authorize", "the consent form: guarded by the sign-in session cookie and its CSRF token"],
      ["POST /oauth/logout", "signs the session out: guarded by the session's CSRF token"],
      ["POST /oauth/token", "authenticates the OAuth client itself (client secret or PKCE), RFC 6749"],
      ["POST /oauth/revoke", "authenticates the OAuth client itself, RFC 7009"],
    ] as const
  ).map(([route, why]) => ({ route, public: why })),
];

const PEOPLE_READ: AcceptedScopes = ["user-info:read"];
const PEOPLE: SecurityCase[] = [
  { route: "GET /api/v1/user-info/people", scopes: PEOPLE_READ, query: "?usernames=nobody" },
  { route: "GET /api/v1/user-info/people/search", scopes: PEOPLE_READ, query: "?period=CurrMonth" },
  { route: "GET /api/v1/user-info/people/:username/gain", scopes: PEOPLE_READ },
  {
    route: "GET /api/v1/user-info/people/:username/daily-gain",
    scopes: PEOPLE_READ,
    query: "?minDate=2026-01-01&maxDate=2026-01-31&type=Daily",
  },
  { route: "GET /api/v1/user-info/people/:username/portfolio/live", scopes: PEOPLE_READ },
  { route: "GET /api/v1/user-info/people/:username/tradeinfo", scopes: PEOPLE_READ, query: "?period=CurrMonth" },
  { route: "GET /api/v2/portfolios/:username/assets/history", scopes: PEOPLE_READ, query: "?period=CurrMonth" },
  { route: "GET /api/v2/portfolios/:username/exposure/history", scopes: PEOPLE_READ, query: "?period=CurrMonth" },
  { route: "GET /api/v2/portfolios/:username/gain/:granularity", scopes: PEOPLE_READ },
  { route: "GET /api/v2/portfolios/:username/copiers", scopes: PEOPLE_READ },
  { route: "GET /api/v1/user-info/privacy", scopes: ["user-info:read", "user-info:write"] },
  { route: "PUT /api/v1/user-info/privacy", scopes: ["user-info:write"], payload: { copyBlocked: false } },
];

const PUBLIC: SecurityCase[] = [
  { route: "OPTIONS *", public: "the CORS preflight, which browsers send without credentials" },
  { route: "GET /health", public: "liveness probe for load balancers" },
  { route: "GET /ready", public: "readiness probe for load balancers" },
  { route: "GET /api/v1/avatars/users/:gcid/:file", public: "an <img> cannot send credentials; initials only" },
  {
    route: "GET /api/v1/market-data/avatars/:instrumentId/:file",
    public: "an <img> cannot send credentials; an instrument's logo is public",
  },
  ...(
    [
      "GET /openapi.json",
      "GET /docs",
      "GET /docs/static/index.html",
      "GET /docs/static/swagger-initializer.js",
      "GET /docs/static/*",
      "GET /docs/json",
      "GET /docs/yaml",
    ] as const
  ).map((route) => ({ route, public: "the API's documentation" })),
  ...(["GET /dashboard", "GET /dashboard/app.js", "GET /dashboard/app.css"] as const).map((route) => ({
    route,
    public:
      "the dashboard's page and bundle: it signs in through the OAuth flow and calls the API with its bearer token",
  })),
];

/**
 * The cases by the test file that runs them, test/security/<name>.test.ts: a few files, so the
 * suite runs on several workers, grouped so that a failure says where to look.
 */
export const SECURITY_CASES = {
  sandbox: SANDBOX,
  platform: [...IDENTITY, ...NOTIFICATIONS, ...PRICE_ALERTS, ...MEDIA, ...OAUTH, ...PUBLIC],
  "market-and-trading": [...MARKET, ...TRADING],
  watchlists: WATCHLISTS,
  "social-posts-and-feeds": [...SOCIAL_POSTS, ...SOCIAL_FEEDS],
  "social-interactions": SOCIAL_INTERACTIONS,
  people: PEOPLE,
} satisfies Record<string, SecurityCase[]>;

export type SecurityFile = keyof typeof SECURITY_CASES;

export const ALL_SECURITY_CASES: SecurityCase[] = Object.values(SECURITY_CASES).flat();

/** Scopes of a case as a sorted list (empty for ANY_AUTHENTICATED), for comparison. */
export const sortedScopes = (scopes: AcceptedScopes): Scope[] => [...namedScopes(scopes)].sort();

/** What the coverage check reads of a registered route (src/http/route-table.ts's RouteEntry). */
export interface RegisteredRoute {
  method: string;
  url: string;
  access: { scopes: AcceptedScopes; auth?: "required" | "optional" } | undefined;
}

/**
 * Every way the registered routes and the cases disagree, one line each; empty when every route
 * has exactly one entry that says what the route declares. A HEAD route next to a GET of the same
 * path (or of that path without its trailing slash, which a prefixed plugin's `/` route gets) is
 * Fastify's twin of that GET and is covered by its entry (it must carry the same guard).
 */
export function coverageProblems(routes: readonly RegisteredRoute[], cases: readonly SecurityCase[]): string[] {
  const problems: string[] = [];
  const byRoute = new Map<string, SecurityCase>();
  for (const c of cases) {
    if (byRoute.has(c.route)) problems.push(`${c.route}: more than one entry`);
    byRoute.set(c.route, c);
  }
  const getOf = new Map(routes.filter((r) => r.method === "GET").map((r) => [r.url, r]));
  const seen = new Set<string>();
  for (const r of routes) {
    const key = `${r.method} ${r.url}`;
    const twin = r.method === "HEAD" ? (getOf.get(r.url) ?? getOf.get(r.url.replace(/(.)\/$/, "$1"))) : undefined;
    if (twin) {
      if (twin.access !== r.access) problems.push(`${key}: not guarded as GET ${twin.url} is`);
      continue;
    }
    seen.add(key);
    const c = byRoute.get(key);
    if (!c) {
      problems.push(`${key}: no entry in the shared security suite (test/support/security-cases.ts)`);
    } else if (r.access === undefined) {
      if (!isPublic(c)) problems.push(`${key}: declares no access, but its entry expects a guarded route`);
    } else if (isPublic(c)) {
      problems.push(`${key}: declares access, but its entry says it is public`);
    } else {
      const declared = sortedScopes(r.access.scopes).join(" ") || "ANY_AUTHENTICATED";
      const expected = sortedScopes(c.scopes).join(" ") || "ANY_AUTHENTICATED";
      if (declared !== expected) problems.push(`${key}: accepts ${declared}, its entry expects ${expected}`);
      if ((r.access.auth === "optional") !== (c.auth === "optional")) {
        problems.push(`${key}: auth is ${r.access.auth ?? "required"}, its entry expects ${c.auth ?? "required"}`);
      }
    }
  }
  for (const c of cases) if (!seen.has(c.route)) problems.push(`${c.route}: an entry for no registered route`);
  return problems;
}
