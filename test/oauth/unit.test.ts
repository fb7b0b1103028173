import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { KNOWN_SCOPES } from "../../src/core/scopes.js";
import { hashPassword, passwordProblem, verifyPassword } from "../../src/modules/identity/passwords.js";
import { pkceMatches } from "../../src/modules/oauth/authorize.js";
import { redirectUriMatches, redirectUriProblem } from "../../src/modules/oauth/clients.js";
import { issuerFor } from "../../src/modules/oauth/issuer.js";
import { escapeHtml } from "../../src/modules/oauth/oauth.pages.js";
import { parseScopeParam, scopeString } from "../../src/modules/oauth/scope-words.js";

const UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".split("");
const verifierArb = fc.array(fc.constantFrom(...UNRESERVED), { minLength: 43, maxLength: 128 }).map((a) => a.join(""));
const s256 = (v: string) => createHash("sha256").update(v).digest("base64url");

describe("PKCE S256 (RFC 7636)", () => {
  it("matches the RFC's appendix B example", () => {
    expect(
      pkceMatches("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
    ).toBe(true);
  });

  it("accepts every valid verifier against its own challenge and rejects any other verifier", () => {
    fc.assert(
      fc.property(verifierArb, verifierArb, (a, b) => {
        expect(pkceMatches(a, s256(a))).toBe(true);
        if (a !== b) expect(pkceMatches(b, s256(a))).toBe(false);
      }),
    );
  });

  it("rejects verifiers that are too short, too long or use other characters, even when the hash matches", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), (v) => {
        const valid = /^[A-Za-z0-9._~-]{43,128}$/.test(v);
        expect(pkceMatches(v, s256(v))).toBe(valid);
      }),
    );
  });
});

describe("redirect URIs", () => {
  it.each([
    ["https://app.example/callback", null],
    ["http://127.0.0.1/cb", null],
    ["http://[::1]:8000/cb", null],
    ["http://localhost:3000/cb", null],
    ["com.example.app:/oauth", null],
    ["http://app.example/cb", "plain http"],
    ["https://app.example/cb#frag", "fragment"],
    ["javascript:alert(1)", "reverse-domain"],
    ["data:text/html,hi", "reverse-domain"],
    ["/relative", "absolute"],
  ])("%s → %s", (uri, problem) => {
    const found = redirectUriProblem(uri);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toContain(problem);
  });

  it("match exactly, except any port on a loopback IP literal (RFC 8252 §7.3)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 65535 }), fc.webPath(), (port, path) => {
        const p = path.startsWith("/") ? path : `/${path}`;
        expect(redirectUriMatches([`http://127.0.0.1${p}`], `http://127.0.0.1:${port}${p}`)).toBe(true);
        expect(redirectUriMatches([`http://[::1]${p}`], `http://[::1]:${port}${p}`)).toBe(true);
        // Elsewhere the match is exact (0036), a scheme's default port written out included.
        expect(redirectUriMatches([`https://app.example${p}`], `https://app.example:${port}${p}`)).toBe(false);
        expect(redirectUriMatches([`http://localhost${p}`], `http://localhost:${port}${p}`)).toBe(false);
        expect(redirectUriMatches([`http://127.0.0.1${p}`], `http://127.0.0.1:${port}${p}x`)).toBe(false);
      }),
      {
        examples: [
          [80, ""],
          [443, "/cb"],
        ],
      },
    );
  });
});

describe("scopes in OAuth requests", () => {
  it("parses bare and prefixed scopes alike, keeps order, drops duplicates, reports unknown ones", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...KNOWN_SCOPES), { minLength: 1, maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        (scopes, prefixed) => {
          const text = scopes.map((s, i) => (prefixed[i] ? `service-public:${s}` : s)).join("  ");
          const parsed = parseScopeParam(text, "service-public");
          expect(parsed.unknown).toEqual([]);
          expect(parsed.scopes).toEqual([...new Set(scopes)]);
          expect(parseScopeParam(scopeString(parsed.scopes, "service-public"), "service-public").scopes).toEqual(
            parsed.scopes,
          );
        },
      ),
    );
    expect(parseScopeParam("feed:read other-public:feed:read root", "service-public").unknown).toEqual([
      "other-public:feed:read",
      "root",
    ]);
  });
});

describe("scrypt passwords", () => {
  it("verifies the right password and nothing else", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 8, maxLength: 40 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        async (pw, other) => {
          const stored = await hashPassword(pw);
          expect(stored).toMatch(/^scrypt\$16\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
          expect(await verifyPassword(pw, stored)).toBe(true);
          if (other.normalize("NFC") !== pw.normalize("NFC")) expect(await verifyPassword(other, stored)).toBe(false);
        },
      ),
      { numRuns: 4 },
    );
  });

  it("salts every hash, and refuses malformed or absent hashes", async () => {
    const a = await hashPassword("same password");
    const b = await hashPassword("same password");
    expect(a).not.toBe(b);
    for (const stored of [null, "", "plain", "scrypt$99$8$1$AAAA$BBBB", "bcrypt$x", a.replace(/\$16\$/, "$10$")]) {
      expect(await verifyPassword("same password", stored)).toBe(false);
    }
    expect(passwordProblem("short")).toContain("at least 8");
    expect(passwordProblem("long enough")).toBeNull();
  });
});

describe("the pages escape what they show", () => {
  it("no markup survives escapeHtml", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const out = escapeHtml(s);
        expect(out).not.toMatch(/[<>"']/);
        expect(
          out
            .replace(/&lt;/g, "<")
            .replace(/&gt;/g, ">")
            .replace(/&quot;/g, '"')
            .replace(/&#39;/g, "'")
            .replace(/&amp;/g, "&"),
        ).toBe(s);
      }),
    );
  });
});

describe("OAuth configuration", () => {
  it("defaults: audience, TTLs, issuer from HOST and PORT", () => {
    const config = loadConfig({ PORT: "9000", HOST: "0.0.0.0" });
    expect(config.oauth).toEqual({
      publicUrl: undefined,
      audience: "social-trading-api",
      accessTokenTtl: 900,
      refreshTokenTtl: 30 * 86_400,
      external: undefined,
    });
    expect(issuerFor(config)).toBe("http://127.0.0.1:9000");
    expect(issuerFor(config, 41234)).toBe("http://127.0.0.1:41234");
    expect(issuerFor(loadConfig({ PUBLIC_URL: "https://api.example.com/" }), 41234)).toBe("https://api.example.com");
  });

  it("names every bad value", () => {
    let error: unknown;
    try {
      loadConfig({
        PUBLIC_URL: "ftp://x",
        ACCESS_TOKEN_TTL: "5",
        REFRESH_TOKEN_TTL: "abc",
        OAUTH_JWKS_URL: "https://idp.example/jwks",
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join("\n");
    expect(problems).toContain("PUBLIC_URL");
    expect(problems).toContain("ACCESS_TOKEN_TTL");
    expect(problems).toContain("REFRESH_TOKEN_TTL");
    expect(problems).toContain("OAUTH_JWKS_URL and OAUTH_EXTERNAL_ISSUER must be set together");
  });
});
