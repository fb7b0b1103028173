import { requireUser } from "../../../core/access.js";
import { isoNow } from "../../../core/clock.js";
import { AppError, invalid } from "../../../core/errors.js";
import { type Ctx, transact } from "../../context.js";
import { usersDirectory } from "../../identity/user-ref.js";
import { notify } from "../../notifications/notify.js";
import { copyRefusal } from "../../people/privacy/privacy.js";
import { READ_SCOPES, TRADE_SCOPES } from "../../trading/demo-account.js";
import { demoLedger } from "../../trading/demo-ledger.js";
import { fromCents, toCents } from "../../trading/math.js";
import { announceCopiers } from "../mirrors/announce-copiers.js";
import { ACTIVE, type MirrorRow, mirrorsRepository, PAUSED } from "../mirrors/mirrors.repository.js";
import { startMirror } from "../mirrors/start-mirror.js";
import { stopMirror } from "../mirrors/stop-mirror.js";

export interface StartCopyInput {
  username: string;
  amount: number;
  /** The copy's equity floor in USD: crossing it stops the copy. Absent = none. */
  stopLossAmount?: number | undefined;
}

const amountCents = (field: string, value: number) => {
  const cents = toCents(value);
  if (cents === null || cents <= 0)
    throw invalid(field, `must be a positive amount of USD with at most 2 decimals; got ${value}`);
  return cents;
};

/** Starts copying a person with `amount` of the caller's demo cash (decision 0147). */
export async function startCopy(ctx: Ctx, input: StartCopyInput): Promise<MirrorRow> {
  const actor = requireUser(ctx.actor, TRADE_SCOPES);
  const settings = ctx.config.copyTrading;
  const cents = amountCents("amount", input.amount);
  if (cents < settings.minInvestmentCents || cents > settings.maxInvestmentCents) {
    throw invalid(
      "amount",
      `must be from ${fromCents(settings.minInvestmentCents)} to ${fromCents(settings.maxInvestmentCents)} USD; got ${input.amount}`,
    );
  }
  const stopLossCents = input.stopLossAmount === undefined ? 0 : amountCents("stopLossAmount", input.stopLossAmount);
  if (stopLossCents >= cents) throw invalid("stopLossAmount", `must be below {amount}, ${input.amount} USD`);
  const parent = await usersDirectory(ctx.db.kysely).findUserByUsername(input.username);
  if (!parent) throw new AppError("NotFound", `No user "${input.username}" may be copied`);
  if (parent.id === actor.userId) throw invalid("username", "must name someone else: nobody copies themself");
  // The one rule of who may be copied (decision 0141): private, blocked and opted-out users are not.
  const refusal = await copyRefusal(ctx, actor.userId, parent.id);
  if (refusal?.code === "copyBlocked")
    throw invalid("username", `must name someone who allows copying; ${refusal.message}`);
  if (refusal) throw new AppError("NotFound", `No user "${input.username}" may be copied`);
  const me = await usersDirectory(ctx.db.kysely).findUserById(actor.userId);
  const mirrorId = await transact(ctx, async (trx) => {
    const started = await startMirror(ctx, trx, actor, {
      parentUserId: parent.id,
      investmentCents: cents,
      stopLossCents,
      agentPortfolioId: null,
    });
    if (started === "InsufficientCash") throw invalid("amount", "must be at most the available cash");
    if (started === "TooManyCopies") {
      throw new AppError("Conflict", `At most ${settings.maxCopiesPerUser} copies may be active at once`);
    }
    return started;
  });
  await announceCopiers(ctx, parent.id);
  await notify(ctx, {
    userId: parent.id,
    kind: "copyStarted",
    message: `${me?.username ?? "Someone"} started copying you`,
    actionLink: `/api/v2/portfolios/${parent.username}/copiers`,
    correlationId: String(mirrorId),
    publishDate: isoNow(ctx.clock),
  });
  return (await mirrorsRepository(ctx.db.kysely).findMirror(mirrorId))!;
}

async function ownMirror(ctx: Ctx, mirrorId: number): Promise<MirrorRow> {
  const actor = requireUser(ctx.actor, TRADE_SCOPES);
  const mirror = await mirrorsRepository(ctx.db.kysely).findMirror(mirrorId);
  if (
    !mirror ||
    mirror.copierUserId !== actor.userId ||
    mirror.agentPortfolioId !== null ||
    mirror.status === "stopped"
  ) {
    throw new AppError("NotFound", `Copy ${mirrorId} was not found`);
  }
  return mirror;
}

/** Adds (positive) or removes (negative) cash between the account and the copy, exactly. */
export async function fundCopy(ctx: Ctx, mirrorId: number, amount: number): Promise<MirrorRow> {
  const mirror = await ownMirror(ctx, mirrorId);
  const cents = toCents(amount);
  if (cents === null || cents === 0)
    throw invalid("amount", `must be a non-zero amount of USD with at most 2 decimals; got ${amount}`);
  await transact(ctx, async (trx) => {
    const now = isoNow(ctx.clock);
    const trading = demoLedger(trx);
    const mirrors = mirrorsRepository(trx);
    if (cents > 0) {
      if (!(await trading.debit(mirror.copierUserId, cents, now)))
        throw invalid("amount", "must be at most the available cash");
      if (!(await mirrors.fund(mirrorId, cents, 0, now)))
        throw new AppError("Conflict", `Copy ${mirrorId} is stopping`);
    } else {
      if (!(await mirrors.fund(mirrorId, 0, -cents, now))) {
        throw invalid("amount", "must remove at most the copy's available cash");
      }
      await trading.settle(mirror.copierUserId, -cents, 0, now);
    }
  });
  return (await mirrorsRepository(ctx.db.kysely).findMirror(mirrorId))!;
}

export async function pauseCopy(ctx: Ctx, mirrorId: number, paused: boolean): Promise<MirrorRow> {
  await ownMirror(ctx, mirrorId);
  const from = paused ? [ACTIVE] : [PAUSED];
  await mirrorsRepository(ctx.db.kysely).setStatus(mirrorId, from, paused ? PAUSED : ACTIVE, isoNow(ctx.clock));
  return (await mirrorsRepository(ctx.db.kysely).findMirror(mirrorId))!;
}

export async function stopCopy(ctx: Ctx, mirrorId: number): Promise<void> {
  await ownMirror(ctx, mirrorId);
  await stopMirror(ctx, mirrorId);
}

export async function listCopies(ctx: Ctx): Promise<MirrorRow[]> {
  const actor = requireUser(ctx.actor, READ_SCOPES);
  return (await mirrorsRepository(ctx.db.kysely).mirrorsOfCopier(actor.userId)).filter(
    (m) => m.agentPortfolioId === null,
  );
}
