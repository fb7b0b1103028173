import { isoNow } from "../../core/clock.js";
import { recordAudit } from "../audit/record-audit.js";
import { type Deps, transact } from "../context.js";
import { oauthRepository } from "./oauth.repository.js";

/**
 * Revokes a grant: its refresh tokens and access tokens stop working. The OAuthGrantRevoked
 * event tells every instance to drop the grant's tokens from its bearer cache at once.
 */
export async function revokeGrant(deps: Deps, grantId: string, reason: string): Promise<boolean> {
  return transact(deps, async (trx, record) => {
    const repo = oauthRepository(trx);
    const grant = await repo.findGrant(grantId);
    if (!grant) return false;
    const occurredAt = isoNow(deps.clock);
    if (!(await repo.revokeGrant(grantId, occurredAt, reason))) return false;
    record({ type: "OAuthGrantRevoked", grantId, userId: grant.userId, reason, occurredAt });
    const details = { grantId, clientId: grant.clientId, reason };
    await recordAudit(deps, { action: "oauth-grant.revoked", outcome: "success", userId: grant.userId, details }, trx);
    return true;
  });
}
