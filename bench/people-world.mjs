// The people benches' world (bench/people.mjs, bench/people-pass-profile.mjs): N users, each with a
// demo account and one open position (random instrument, side, leverage, size), from a seeded
// generator so every run fills the same store.
import { randomUUID } from "node:crypto";

const INSTRUMENTS = [1, 17, 18, 27, 1001, 1002, 1003, 100000, 100001, 3001];

export async function fillPeopleWorld(deps, N, { currentQuotes }) {
  const db = deps.db.kysely;
  const quotes = await currentQuotes(deps, INSTRUMENTS);
  const ids = INSTRUMENTS.filter((id) => quotes.has(id));
  let state = 12345;
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
  const now = deps.clock.now();
  const CHUNK = 1000;
  for (let start = 0; start < N; start += CHUNK) {
    const users = [];
    const accounts = [];
    const positions = [];
    for (let i = start; i < Math.min(N, start + CHUNK); i++) {
      const id = randomUUID();
      const name = `bench_${i}`;
      users.push({
        id,
        username: name,
        usernameLower: name,
        firstName: "Bench",
        lastName: `Trader ${i}`,
        countryCode: 1 + Math.floor(random() * 200),
        piLevel: random() < 0.05 ? 1 + Math.floor(random() * 4) : 0,
        isPrivate: random() < 0.05 ? 1 : 0,
        createdAt: new Date(now.getTime() - Math.floor(random() * 200 * 7 * 86_400_000)).toISOString(),
      });
      const instrumentId = ids[Math.floor(random() * ids.length)];
      const q = quotes.get(instrumentId);
      const leverage = [1, 2, 5][Math.floor(random() * 3)];
      const amountCents = 10_000 + Math.floor(random() * 490_000);
      const openRate = q.mid * (1 + (random() - 0.5) * 0.1);
      accounts.push({
        userId: id,
        cid: 20_000_000 + i,
        cashCents: 10_000_000 - amountCents,
        startingCents: 10_000_000,
        realizedPnlCents: 0,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      });
      positions.push({
        userId: id,
        cid: 20_000_000 + i,
        orderId: i + 1,
        instrumentId,
        isBuy: random() < 0.7 ? 1 : 0,
        leverage,
        amountCents,
        initialAmountCents: amountCents,
        units: ((amountCents / 100) * leverage) / openRate,
        initialUnits: ((amountCents / 100) * leverage) / openRate,
        openRate,
        openDateTime: now.toISOString(),
        stopLossRate: 0,
        takeProfitRate: 0,
        isTslEnabled: 0,
        tslGap: 0,
        isNoStopLoss: 1,
        isNoTakeProfit: 1,
        status: "open",
        version: 1,
        lastUpdate: now.toISOString(),
      });
    }
    await db.transaction().execute(async (trx) => {
      for (let k = 0; k < users.length; k += 200)
        await trx
          .insertInto("users")
          .values(users.slice(k, k + 200))
          .execute();
      for (let k = 0; k < accounts.length; k += 200)
        await trx
          .insertInto("demoAccounts")
          .values(accounts.slice(k, k + 200))
          .execute();
      for (let k = 0; k < positions.length; k += 100)
        await trx
          .insertInto("demoPositions")
          .values(positions.slice(k, k + 100))
          .execute();
    });
  }
}

/** A clock fixed at 22:00Z of `day`. */
export const dayClock = (day) => ({ now: () => new Date(`${day}T22:00:00.000Z`) });
