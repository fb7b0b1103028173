import type { PositionClosed, PositionOpened } from "../../../core/events.js";
import { type Deps, transact } from "../../context.js";
import { findInstruments } from "../../market/find-instruments.js";
import { demoLedger } from "../../trading/demo-ledger.js";
import { socialChanged } from "../shared/changes.js";
import { newEntry } from "../shared/content.js";
import { socialRepository } from "../shared/social.repository.js";
import { tradePostsRepository } from "./trade-posts.repository.js";

/** What a Trade post keeps of its trade (upstream's `metadata.trade` but the market, built when read). */
export interface StoredTrade {
  type: "Open" | "Close";
  positionId: number;
  instrumentId: number;
  direction: "Long" | "Short";
  rate: number;
  /** The closed part's net P/L in percent of its invested amount; 0 on an open. */
  gain: number;
}

const rounded = (n: number) => Math.round(n * 100) / 100;

/**
 * After a demo position opens or closes (fully or in part): a Trade post by its owner, if the owner
 * chose to publish trades, tagged with the instrument so it shows in their feed and the
 * instrument's. A copy's positions (mirrorId set) are not the copier's own trades: no post.
 */
export async function publishTrade(deps: Deps, event: PositionOpened | PositionClosed): Promise<void> {
  if (!(await tradePostsRepository(deps.db.kysely).isEnabled(event.userId))) return;
  const position = await demoLedger(deps.db.kysely).findPosition(event.positionId);
  if (!position || position.mirrorId != null) return;
  const instrument = (await findInstruments(deps, [event.instrumentId])).get(event.instrumentId);
  const symbol = instrument?.symbol ?? String(event.instrumentId);
  const direction = event.isBuy ? "Long" : "Short";
  let trade: StoredTrade;
  let text: string;
  if (event.type === "PositionOpened") {
    trade = {
      type: "Open",
      positionId: event.positionId,
      instrumentId: event.instrumentId,
      direction,
      rate: event.openRate,
      gain: 0,
    };
    text = `Opened a ${direction.toLowerCase()} position in $${symbol} at ${event.openRate}`;
  } else {
    const invested =
      position.initialUnits > 0 ? (position.initialAmountCents * event.unitsClosed) / position.initialUnits : 0;
    const gain = invested > 0 ? rounded((event.netProfitCents / invested) * 100) : 0;
    trade = {
      type: "Close",
      positionId: event.positionId,
      instrumentId: event.instrumentId,
      direction,
      rate: event.closeRate,
      gain,
    };
    text = `${event.fullyClosed ? "Closed" : "Partly closed"} a ${direction.toLowerCase()} position in $${symbol} at ${event.closeRate}: ${gain >= 0 ? "+" : ""}${gain}%`;
  }
  await transact(deps, async (trx, record) => {
    const repo = socialRepository(trx);
    const at = event.occurredAt;
    const post = await repo.insertPost({
      ...newEntry(event.userId, text, [], at),
      type: "Trade",
      sharedPostId: null,
      sharedOriginPostId: null,
      trade: JSON.stringify(trade),
    });
    await repo.insertTags([
      { postId: post.id, postSeq: post.seq, instrumentId: event.instrumentId, position: 0, createdAt: at },
    ]);
    record(
      socialChanged(at, { postIds: [post.id], listed: { ownerId: event.userId, instrumentIds: [event.instrumentId] } }),
    );
  });
}
