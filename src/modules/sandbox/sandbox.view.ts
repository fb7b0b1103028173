import type { Static } from "typebox";
import type { Quote } from "../../core/market.js";
import type { FaultRule } from "./fault-book.js";
import type { FaultView, QuoteView } from "./sandbox.schemas.js";

export const toQuoteView = (q: Quote): Static<typeof QuoteView> => ({
  instrumentId: q.instrumentId,
  bid: q.bid,
  ask: q.ask,
  mid: q.mid,
  date: q.date,
  priceRateId: q.priceRateId,
});

export const toFaultView = (f: FaultRule): Static<typeof FaultView> => ({
  id: f.id,
  credentialId: f.credentialId,
  userId: f.userId,
  operation: f.operation,
  kind: f.kind,
  remaining: f.remaining,
  share: f.share,
  retryAfterSeconds: f.retryAfterSeconds,
  delayMs: f.delayMs,
  seen: f.seen,
  injected: f.injected,
  createdAt: f.createdAt,
});
