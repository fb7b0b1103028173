import { hashSecret } from "../../core/ids.js";
import type { Deps } from "../context.js";
import { grantOfAccessToken } from "./access-tokens.js";
import { revokeGrant } from "./grants.js";
import { type ClientRow, oauthRepository } from "./oauth.repository.js";

/**
 * RFC 7009. Revoking a refresh token or an access token revokes the grant they belong to: every
 * refresh token of the family and every access token issued from it stop working at once (bearer
 * verification checks the grant). An unknown token, or one of another client, changes nothing and
 * still gets 200, so the endpoint reveals nothing about tokens it was not given by their owner.
 */
export async function revokeToken(deps: Deps, issuer: string, client: ClientRow, token: string): Promise<void> {
  const repo = oauthRepository(deps.db.kysely);
  const refresh = await repo.findRefreshToken(hashSecret(token));
  const grantId = refresh ? refresh.grantId : await grantOfAccessToken(deps, issuer, token);
  if (!grantId) return;
  const grant = await repo.findGrant(grantId);
  if (!grant || grant.clientId !== client.id) return;
  await revokeGrant(deps, grant.id, "revoked by the client");
}
