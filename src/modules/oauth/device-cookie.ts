import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { isoNow } from "../../core/clock.js";
import type { Deps } from "../context.js";
import { oauthRepository } from "./oauth.repository.js";

/**
 * The device cookie (decision 0104): given to a browser when it signs in, it names the account and
 * a random nonce, signed with a key the store keeps (the setting `device-cookie-key`, made at first
 * use), so every instance checks every instance's cookies and no cookie can be made without it.
 * It proves only that this browser signed in to that account before; it never signs anyone in.
 */
export interface DeviceCookie {
  userId: string;
  nonce: string;
}

const KEY_SETTING = "device-cookie-key";
const VERSION = "d1";

async function signingKey(deps: Deps): Promise<Buffer> {
  const repo = oauthRepository(deps.db.kysely);
  let value = await repo.findSetting(KEY_SETTING);
  if (!value) {
    await repo.putSettingIfAbsent(KEY_SETTING, randomBytes(32).toString("base64url"), isoNow(deps.clock));
    value = (await repo.findSetting(KEY_SETTING))!;
  }
  return Buffer.from(value, "base64url");
}

const mac = (key: Buffer, payload: string) => createHmac("sha256", key).update(payload).digest("base64url");

/** A new cookie value for `userId`, valid for `ttlSeconds`. */
export async function issueDeviceCookie(deps: Deps, userId: string, ttlSeconds: number): Promise<string> {
  const expires = Math.floor(deps.clock.now().getTime() / 1000) + ttlSeconds;
  const payload = `${VERSION}.${userId}.${randomBytes(18).toString("base64url")}.${expires}`;
  return `${payload}.${mac(await signingKey(deps), payload)}`;
}

/** The cookie's account and nonce when it is ours, intact and not expired; else null. */
export async function readDeviceCookie(deps: Deps, value: string | undefined): Promise<DeviceCookie | null> {
  const parts = (value ?? "").split(".");
  if (parts.length !== 5 || parts[0] !== VERSION) return null;
  const [, userId, nonce, expires, signature] = parts as [string, string, string, string, string];
  if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 <= deps.clock.now().getTime()) return null;
  const expected = Buffer.from(mac(await signingKey(deps), parts.slice(0, 4).join(".")));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { userId, nonce };
}
