import { requireUser } from "../../core/access.js";
import { AppError } from "../../core/errors.js";
import type { Ctx } from "../context.js";
import { type PersonRow, peopleRepository } from "./people.repository.js";
import { PEOPLE_LOOKUP_MAX, type PeopleQuery, type PersonInfo } from "./people.schemas.js";
import { gcidOfCid, toPersonInfo } from "./people.view.js";
import { PEOPLE_READ } from "./privacy/privacy.js";

const USERNAME = /^[A-Za-z0-9_.-]{1,64}$/;

const badRequest = (message: string) => new AppError("BadRequest", message);

function listOf(text: string, name: string): string[] {
  const items = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (items.length === 0) throw badRequest(`${name} names no one`);
  if (items.length > PEOPLE_LOOKUP_MAX) {
    throw badRequest(`${name} names ${items.length}; at most ${PEOPLE_LOOKUP_MAX} may be asked at once`);
  }
  return [...new Set(items)];
}

/**
 * Users by username or customer id (upstream's 400 and 404 rules, decision 0140): one of the two
 * lists, at most PEOPLE_LOOKUP_MAX names; 404 when any one is unknown, private or across a block.
 */
export async function readPeople(ctx: Ctx, query: PeopleQuery): Promise<PersonInfo[]> {
  const actor = requireUser(ctx.actor, PEOPLE_READ);
  const hasNames = query.usernames !== undefined;
  const hasCids = query.cidList !== undefined;
  if (hasNames === hasCids) throw badRequest("Give either usernames or cidList (one of the two)");
  const repo = peopleRepository(ctx.db.kysely);
  let users: PersonRow[];
  let missing: string[];
  if (hasNames) {
    const names = listOf(query.usernames as string, "usernames");
    const bad = names.find((n) => !USERNAME.test(n));
    if (bad) throw badRequest(`usernames: ${JSON.stringify(bad)} is not a username (letters, digits, _ . -)`);
    users = await repo.usersByUsernames(names);
    const found = new Set(users.map((u) => u.usernameLower));
    missing = names.filter((n) => !found.has(n.toLowerCase()));
  } else {
    const texts = listOf(query.cidList as string, "cidList");
    const bad = texts.find((t) => !/^\d{1,10}$/.test(t) || Number(t) > 2_147_483_647);
    if (bad) throw badRequest(`cidList: ${JSON.stringify(bad)} is not a customer id`);
    const gcids = texts.map((t) => gcidOfCid(Number(t)));
    users = await repo.usersByGcids([...new Set(gcids)]);
    const found = new Set(users.map((u) => u.gcid));
    missing = texts.filter((_t, i) => !found.has(gcids[i]!));
  }
  const people = peopleRepository(ctx.db.kysely);
  const hidden: PersonRow[] = [];
  for (const u of users) {
    if (u.id === actor.userId) continue;
    if (u.isPrivate === 1 || (await people.blockedEitherWay(actor.userId, u.id))) hidden.push(u);
  }
  missing.push(...hidden.map((u) => u.username));
  if (missing.length > 0) throw new AppError("NotFound", `Not found: ${missing.join(", ")}`);
  const settings = await people.settingsOf(users.map((u) => u.id));
  return users.map((u) =>
    toPersonInfo(u, {
      isPrivate: u.isPrivate === 1,
      portfolioOptOut: settings.get(u.id)?.portfolioOptOut ?? false,
      copyBlocked: settings.get(u.id)?.copyBlocked ?? false,
    }),
  );
}
