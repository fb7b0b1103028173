import { isUuid } from "../../core/ids.js";
import type { Deps } from "../context.js";
import { AVATAR_SIZES, avatarColorOf, avatarOf, initialsOf, renderAvatarSvg } from "./avatar.js";
import { identityRepository, PROFILE_COLUMNS, type ProfileRow } from "./identity.repository.js";
import type { UserProfile } from "./identity.schemas.js";

export type { UserProfile };

/** A profile plus the internal identifiers other modules join on. */
export interface UserRecord {
  userId: string;
  gcid: number;
  username: string;
  isPrivate: boolean;
  /** When the user registered (ISO). */
  createdAt: string;
  profile: UserProfile;
}

export const toUserRecord = (u: ProfileRow): UserRecord => ({
  userId: u.id,
  gcid: u.gcid,
  username: u.username,
  isPrivate: u.isPrivate === 1,
  createdAt: u.createdAt,
  profile: {
    id: String(u.gcid),
    username: u.username,
    firstName: u.firstName ?? "",
    lastName: u.lastName ?? "",
    avatar: avatarOf(u.gcid),
    roles: ["Regular"],
    isBlocked: false,
    isPrivate: u.isPrivate === 1,
    countryCode: u.countryCode,
    piLevel: u.piLevel,
  },
});

/** Batch load by internal user id (uuid); unknown ids are absent from the map. One query. */
export async function getUserProfiles(
  deps: Pick<Deps, "db">,
  ids: readonly string[],
): Promise<Map<string, UserRecord>> {
  const unique = [...new Set(ids)];
  const rows = await identityRepository(deps.db.kysely).findUsersByIds(unique, PROFILE_COLUMNS);
  return new Map(rows.map((r) => [r.id, toUserRecord(r)]));
}

/**
 * Resolves references the API accepts for a user (gcid digits, internal uuid or username),
 * at most three queries whatever the number of refs. The map is keyed by the ref as given.
 */
export async function resolveUserRefs(
  deps: Pick<Deps, "db">,
  refs: readonly string[],
): Promise<Map<string, UserRecord>> {
  const repo = identityRepository(deps.db.kysely);
  const trimmed = [...new Set(refs.map((r) => r.trim()).filter((r) => r !== ""))];
  const uuids = trimmed.filter(isUuid);
  const gcids = trimmed.filter((r) => /^\d{1,9}$/.test(r)).map(Number);
  const names = trimmed.filter((r) => !isUuid(r));
  const [byId, byGcid, byName] = await Promise.all([
    repo.findUsersByIds(uuids, PROFILE_COLUMNS),
    repo.findUsersByGcids(gcids),
    repo.findUsersByUsernames(names),
  ]);
  const out = new Map<string, UserRecord>();
  for (const ref of refs) {
    const r = ref.trim();
    const row =
      byId.find((u) => u.id === r) ??
      byGcid.find((u) => String(u.gcid) === r) ??
      byName.find((u) => u.usernameLower === r.toLowerCase());
    if (row) out.set(ref, toUserRecord(row));
  }
  return out;
}

/** The avatar image of a user by gcid, or null when there is no such user or size. */
export async function getUserAvatarSvg(deps: Pick<Deps, "db">, gcid: number, size: string): Promise<string | null> {
  const px = size === "avatar" ? AVATAR_SIZES.large : Object.values(AVATAR_SIZES).find((s) => size === `${s}x${s}`);
  if (px === undefined) return null;
  const user = await identityRepository(deps.db.kysely).findUserByGcid(gcid);
  if (!user) return null;
  return renderAvatarSvg(initialsOf(user.username, user.firstName, user.lastName), avatarColorOf(user.gcid), px);
}
