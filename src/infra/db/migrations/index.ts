import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";
import * as foundation from "./001-foundation.js";
import * as oauth from "./002-oauth.js";
import * as market from "./003-market.js";
import * as trading from "./004-trading.js";
import * as watchlists from "./005-watchlists.js";
import * as social from "./006-social.js";
import * as retention from "./007-retention.js";
import * as oauthSettings from "./008-oauth-settings.js";
import * as audit from "./009-audit.js";
import * as signInThrottle from "./010-sign-in-throttle.js";
import * as clubs from "./011-clubs.js";
import * as priceAlerts from "./012-price-alerts.js";
import * as attachments from "./013-attachments.js";
import * as entryOrders from "./014-entry-orders.js";
import * as overnightFees from "./015-overnight-fees.js";
import * as people from "./017-people.js";
import * as copyTrading from "./018-copy-trading.js";
import * as sandboxSnapshots from "./019-sandbox-snapshots.js";
import * as peopleCopiers from "./020-people-copiers.js";
import * as peopleSearch from "./021-people-search.js";
import * as tradePosts from "./024-trade-posts.js";
import * as partialIndexes from "./025-partial-indexes.js";
import * as peopleStatsTouched from "./026-people-stats-touched.js";
import * as peopleStatsVersion from "./027-people-stats-version.js";
import * as peopleSearchFirstAnswers from "./028-people-search-first-answers.js";
import * as callerMarksByUser from "./029-caller-marks-by-user.js";
import * as commentCountsFromIndex from "./031-comment-counts-from-index.js";
import * as pendingOrdersIndex from "./032-pending-orders-index.js";

export interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

/** Applied in key order; never edit a migration that has shipped, add a new one. */
export const MIGRATIONS: Record<string, DialectMigration> = {
  "001-foundation": foundation,
  "002-oauth": oauth,
  "003-market": market,
  "004-trading": trading,
  "005-watchlists": watchlists,
  "006-social": social,
  "007-retention": retention,
  "008-oauth-settings": oauthSettings,
  "009-audit": audit,
  "010-sign-in-throttle": signInThrottle,
  "011-clubs": clubs,
  "012-price-alerts": priceAlerts,
  "013-attachments": attachments,
  "014-entry-orders": entryOrders,
  "015-overnight-fees": overnightFees,
  "017-people": people,
  "018-copy-trading": copyTrading,
  "019-sandbox-snapshots": sandboxSnapshots,
  "020-people-copiers": peopleCopiers,
  "021-people-search": peopleSearch,
  "024-trade-posts": tradePosts,
  "025-partial-indexes": partialIndexes,
  "026-people-stats-touched": peopleStatsTouched,
  "027-people-stats-version": peopleStatsVersion,
  "028-people-search-first-answers": peopleSearchFirstAnswers,
  "029-caller-marks-by-user": callerMarksByUser,
  "031-comment-counts-from-index": commentCountsFromIndex,
  "032-pending-orders-index": pendingOrdersIndex,
};
