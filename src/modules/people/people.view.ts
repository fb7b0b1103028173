import { AVATAR_SIZES, avatarOf } from "../identity/avatar.js";
import { demoCidOf, realCidOf } from "../identity/identity.view.js";
import type { PersonRow } from "./people.repository.js";
import type { PersonInfo } from "./people.schemas.js";
import type { PrivacyChoices } from "./privacy/privacy.js";

/** ISO codes of the language ids users carry (identity's `language`, 1 = English). */
const LANGUAGE_CODES: Record<number, string> = { 1: "en-GB", 2: "de-DE", 3: "fr-FR", 4: "es-ES", 5: "it-IT" };

export const WEEK_MS = 7 * 86_400_000;

export const weeksSince = (createdAt: string, now: Date) =>
  Math.max(0, Math.floor((now.getTime() - new Date(createdAt).getTime()) / WEEK_MS));

export const fullNameOf = (u: Pick<PersonRow, "firstName" | "lastName" | "username">) =>
  [u.firstName, u.lastName].filter((n) => n && n.trim() !== "").join(" ") || u.username;

/** The gcid a customer id names: realCID and demoCID are the gcid plus a fixed offset (decision 0004). */
export function gcidOfCid(cid: number): number {
  if (cid > 20_000_000) return cid - 20_000_000;
  if (cid > 10_000_000) return cid - 10_000_000;
  return cid;
}

export function toPersonInfo(u: PersonRow, choices: PrivacyChoices): PersonInfo {
  const avatar = avatarOf(u.gcid);
  const sizes = [
    [avatar.small, AVATAR_SIZES.small],
    [avatar.medium, AVATAR_SIZES.medium],
    [avatar.large, AVATAR_SIZES.large],
  ] as const;
  return {
    gcid: u.gcid,
    realCID: realCidOf(u.gcid),
    demoCID: demoCidOf(u.gcid),
    username: u.username,
    language: u.language,
    languageIsoCode: LANGUAGE_CODES[u.language] ?? "und",
    country: u.countryCode,
    allowDisplayFullName: true,
    userBio: { gcid: u.gcid, languageCode: null, aboutMe: null, aboutMeShort: null, strategyID: null },
    whiteLabel: null,
    optOut: choices.portfolioOptOut,
    homepage: null,
    playerStatus: null,
    piLevel: u.piLevel,
    isPi: u.piLevel > 0,
    avatars: sizes.map(([url, px]) => ({ url, width: px, height: px, type: "Resized" as const })),
    masterAccountCid: null,
    accountType: 1,
    fundType: null,
    isVerified: false,
    verificationLevel: 0,
    accountStatus: 1,
    gdprInfo: null,
    firstName: u.firstName,
    middleName: u.middleName,
    lastName: u.lastName,
    aboutMe: null,
    aboutMeShort: null,
    customerRestrictions: null,
    copyBlock: choices.copyBlocked,
  };
}
