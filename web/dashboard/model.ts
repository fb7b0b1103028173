/** The shapes the dashboard reads from the API (only the fields it uses), and its arithmetic. */

export interface Instrument {
  instrumentId: number;
  symbol: string;
  name: string;
}

export interface Quote {
  bid: number;
  ask: number;
  last: number;
  /** Epoch milliseconds of the rate. */
  at: number;
}

export interface Position {
  positionID: number;
  instrumentID: number;
  isBuy: boolean;
  units: number;
  openRate: number;
  amount: number;
  leverage: number;
  stopLossRate: number;
  takeProfitRate: number;
  isNoStopLoss: boolean;
  isNoTakeProfit: boolean;
  isTslEnabled: boolean;
  openDateTime: string;
}

export interface PnlBody {
  clientPortfolio: {
    positions: Position[];
    credit: number;
    invested: number;
    realizedPnL: number;
    unrealizedPnL: number;
    equity: number;
  };
}

export interface WatchlistsBody {
  watchlists: {
    watchlistId: string;
    name: string;
    items: { itemId: number; itemType: string; market?: { symbolName: string; displayName: string } }[];
  }[];
}

export interface Notification {
  messageId: string;
  message: string;
  publishDate: string;
  readStatus: string;
  category: string;
}

export interface PollOption {
  id: number;
  index: number;
  text: string;
  isUserVoted: boolean;
  votesCount: number;
}

export interface Post {
  id: string;
  owner: { id: string; username: string; firstName?: string; lastName?: string };
  message: { text: string };
  created: string;
  type: string;
  metadata?: { poll?: { id: number; title: string; options: PollOption[] } };
}

export interface FeedBody {
  discussions: { id: string; post: Post }[];
}

/** The instruments of the caller's watchlists, in order, each once. */
export function watchedInstruments(body: WatchlistsBody): Instrument[] {
  const seen = new Map<number, Instrument>();
  for (const list of body.watchlists) {
    for (const item of list.items) {
      if (item.itemType !== "Instrument" || seen.has(item.itemId)) continue;
      seen.set(item.itemId, {
        instrumentId: item.itemId,
        symbol: item.market?.symbolName ?? String(item.itemId),
        name: item.market?.displayName ?? String(item.itemId),
      });
    }
  }
  return [...seen.values()];
}

/**
 * The same P/L as the server's (src/modules/trading/math.ts): units × (close − open), valued at
 * the bid for a long and the ask for a short, never below minus the margin.
 */
export function positionPnl(p: Position, quote: Quote | undefined): number | null {
  if (!quote) return null;
  const close = p.isBuy ? quote.bid : quote.ask;
  const raw = Math.round(p.units * (close - p.openRate) * (p.isBuy ? 1 : -1) * 100) / 100;
  return Math.max(raw, -p.amount);
}

/** Applies a pushed rate (a delta) to the last quote. */
export function mergeRate(previous: Quote | undefined, fields: Record<string, string>): Quote | undefined {
  const bid = fields.Bid !== undefined ? Number(fields.Bid) : previous?.bid;
  const ask = fields.Ask !== undefined ? Number(fields.Ask) : previous?.ask;
  if (bid === undefined || ask === undefined) return previous;
  const last = fields.LastExecution !== undefined ? Number(fields.LastExecution) : (previous?.last ?? (bid + ask) / 2);
  const at = fields.Date !== undefined ? Date.parse(fields.Date) : Date.now();
  return { bid, ask, last, at };
}

const money = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
/** Whole cents; never "-$0.00". */
export const formatMoney = (n: number) => money.format(Math.round(n * 100) / 100 || 0);

export function formatPrice(n: number): string {
  const digits = n >= 1000 ? 2 : n >= 1 ? 4 : 6;
  return n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: digits });
}

export const formatUnits = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 6 });
