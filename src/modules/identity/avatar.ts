import type { AvatarView } from "./identity.schemas.js";

/**
 * User avatars: every user has one, drawn as an SVG of their initials on a colour derived from
 * their gcid, so addresses are deterministic and need no upload or storage
 * (docs/decisions/0071-user-avatars.md).
 */
export const AVATAR_SIZES = { small: 35, medium: 50, large: 150 } as const;

const PALETTE = ["#1E88E5", "#43A047", "#E53935", "#8E24AA", "#FB8C00", "#00897B", "#3949AB", "#6D4C41"];

export const avatarColorOf = (gcid: number) => PALETTE[Math.abs(gcid) % PALETTE.length]!;

export function avatarOf(gcid: number): AvatarView {
  const base = `/api/v1/avatars/users/${gcid}`;
  const at = (px: number) => `${base}/${px}x${px}.svg`;
  return {
    small: at(AVATAR_SIZES.small),
    medium: at(AVATAR_SIZES.medium),
    large: at(AVATAR_SIZES.large),
    svg: { url: `${base}/avatar.svg`, backgroundColor: avatarColorOf(gcid), textColor: "#FFFFFF" },
  };
}

export function initialsOf(username: string, firstName: string | null, lastName: string | null): string {
  const first = firstName?.trim()[0] ?? "";
  const last = lastName?.trim()[0] ?? "";
  const fromNames = `${first}${last}`;
  return (fromNames || username.slice(0, 2)).toUpperCase();
}

const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);

export function renderAvatarSvg(initials: string, background: string, size: number): string {
  const font = Math.round(size * 0.42);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">` +
    `<rect width="${size}" height="${size}" rx="${Math.round(size / 2)}" fill="${background}"/>` +
    `<text x="50%" y="50%" dy=".35em" text-anchor="middle" font-family="Helvetica,Arial,sans-serif" ` +
    `font-size="${font}" fill="#FFFFFF">${escapeXml(initials)}</text></svg>`
  );
}
