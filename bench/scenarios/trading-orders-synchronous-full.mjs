// The trading-orders scenario with SQLITE_SYNCHRONOUS=full (every commit synced to the disk),
// against the same server with the default SQLITE_SYNCHRONOUS=normal, in the same run: the ratio
// is the cost of power-loss durability (docs/decisions/0107).
import orders from "./trading-orders.mjs";

export default {
  ...orders,
  name: "trading-orders-synchronous-full",
  description:
    "POST .../market-open-orders/by-amount with SQLITE_SYNCHRONOUS=full, against the same server with SQLITE_SYNCHRONOUS=normal",
  targets: {},
  baseline: undefined,
  env: { ...orders.env, SQLITE_SYNCHRONOUS: "full" },
  baselineEnv: { ...orders.env, SQLITE_SYNCHRONOUS: "normal" },
};
