import type { Kysely } from "kysely";
import type { Dialect } from "../database.js";

/**
 * The built-in OAuth 2.0 authorization server: clients, the JWT signing keys (kept here so
 * they survive restarts and are shared by every instance), sign-in sessions of the consent
 * page, authorization codes, grants (one per consent, the "family" of its refresh tokens) and
 * refresh tokens. Secrets are stored as SHA-256 hashes only.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("oauth_clients")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    // null for a public client (PKCE instead of a secret)
    .addColumn("secret_hash", "text")
    .addColumn("redirect_uris", "text", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("revoked_at", "text")
    .execute();

  await db.schema
    .createTable("oauth_signing_keys")
    .addColumn("kid", "text", (c) => c.primaryKey())
    .addColumn("alg", "text", (c) => c.notNull())
    .addColumn("private_jwk", "text", (c) => c.notNull())
    .addColumn("public_jwk", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("retired_at", "text")
    .execute();

  await db.schema
    .createTable("oauth_sessions")
    .addColumn("id_hash", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("csrf_token", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("oauth_grants")
    .addColumn("id", "text", (c) => c.primaryKey())
    // null for tokens minted by the operator (`tokens create`)
    .addColumn("client_id", "text", (c) => c.references("oauth_clients.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("environment", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("revoked_at", "text")
    .addColumn("revoked_reason", "text")
    .execute();
  await db.schema.createIndex("oauth_grants_user").on("oauth_grants").column("user_id").execute();

  await db.schema
    .createTable("oauth_codes")
    .addColumn("code_hash", "text", (c) => c.primaryKey())
    .addColumn("client_id", "text", (c) => c.notNull().references("oauth_clients.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("redirect_uri", "text", (c) => c.notNull())
    // whether redirect_uri was sent in the authorization request (then it must be sent again)
    .addColumn("redirect_uri_given", "integer", (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("code_challenge", "text")
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    // the grant the code was exchanged for, revoked if the code is replayed
    .addColumn("grant_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("oauth_refresh_tokens")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("grant_id", "text", (c) => c.notNull().references("oauth_grants.id").onDelete("cascade"))
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .execute();
  await db.schema.createIndex("oauth_refresh_tokens_grant").on("oauth_refresh_tokens").column("grant_id").execute();
}
