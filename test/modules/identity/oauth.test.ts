/** The rules of OAuth apps and grants that need no runtime (auth.md 6): PKCE S256, redirect URI registration, narrowed rights, client secrets. */
import { describe, expect, it } from 'vitest';
import { isAllowed } from '../../../shared/core/access/permissions';
import { parsePermissions } from '../../../shared/modules/identity/auth-schemas';
import { grantedRights } from '../../../shared/modules/identity/oauth/granted-rights';
import { isWellFormedVerifier, s256 } from '../../../shared/modules/identity/oauth/grants';
import { isAllowedRedirectUri, oauthAppCreate } from '../../../shared/modules/identity/oauth/oauth-app-schemas';
import { secretHash, verifyClientSecret } from '../../../shared/modules/identity/oauth/secrets';

describe('PKCE (RFC 7636)', () => {
  it('computes S256 as the RFC example does', () => {
    expect(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('takes verifiers of 43 to 128 unreserved characters only', () => {
    expect(isWellFormedVerifier('a'.repeat(43))).toBe(true);
    expect(isWellFormedVerifier(`${'A1-._~'.repeat(21)}xx`)).toBe(true);
    expect(isWellFormedVerifier('a'.repeat(42))).toBe(false);
    expect(isWellFormedVerifier('a'.repeat(129))).toBe(false);
    expect(isWellFormedVerifier(`${'a'.repeat(43)}+`)).toBe(false);
  });
});

describe('redirect URIs of an app (auth.md 6.1)', () => {
  it('requires https except for localhost, 127.0.0.1 and *.localhost', () => {
    for (const uri of ['https://app.example.test/cb', 'https://app.example.test/cb?x=1', 'http://localhost:8080/cb', 'http://127.0.0.1/cb', 'http://shop.localhost:4000/oauth/callback.html']) {
      expect(isAllowedRedirectUri(uri), uri).toBe(true);
    }
    for (const uri of ['http://app.example.test/cb', 'http://localhost.evil.test/cb', 'http://127.0.0.2/cb', 'https://app.example.test/cb#x', 'app.example.test/cb', 'javascript:alert(1)', 'https://u:p@app.example.test/', 'custom-scheme://cb']) {
      expect(isAllowedRedirectUri(uri), uri).toBe(false);
    }
  });

  it('keeps each URI exactly as sent (matching is character for character) and drops repeats', () => {
    const parsed = oauthAppCreate.parse({ name: 'A', redirect_uris: ['https://App.example.test/cb/', 'https://App.example.test/cb/'] });
    expect(parsed.redirect_uris).toEqual(['https://App.example.test/cb/']);
  });
});

describe("an app's tokens: the user's rights narrowed by the app's cap (auth.md 6.3)", () => {
  const clerk = { is_account_owner: false, permissions: parsePermissions([{ resource: 'orders', methods: ['read'] }, { resource: 'customers', methods: ['*'] }]) };
  const owner = { is_account_owner: true, permissions: [] };
  const cap = parsePermissions([{ resource: 'orders', methods: ['read', 'update'] }, { resource: 'products', methods: ['read'] }]);

  it('without a cap gives exactly the user its own rights (an owner stays an owner)', () => {
    expect(grantedRights(clerk, { permissions: null })).toEqual({ permissions: clerk.permissions, isOwner: false });
    expect(grantedRights(owner, { permissions: null }).isOwner).toBe(true);
  });

  it('with a cap allows only what both allow, and never what either lacks', () => {
    const narrowed = grantedRights(clerk, { permissions: cap });
    expect(narrowed.isOwner).toBe(false);
    expect(isAllowed(narrowed.permissions, 'orders', 'read')).toBe(true);
    expect(isAllowed(narrowed.permissions, 'orders', 'update')).toBe(false);
    expect(isAllowed(narrowed.permissions, 'products', 'read')).toBe(false);
    expect(isAllowed(narrowed.permissions, 'customers', 'read')).toBe(false);
    const ownerNarrowed = grantedRights(owner, { permissions: cap });
    expect(ownerNarrowed.isOwner).toBe(false);
    expect(isAllowed(ownerNarrowed.permissions, 'orders', 'update')).toBe(true);
    expect(isAllowed(ownerNarrowed.permissions, 'users', 'read')).toBe(false);
  });

  it('honours deny entries of the cap', () => {
    const denying = parsePermissions([{ resource: '*', methods: ['*'] }, { resource: 'customers', methods: ['delete'], allow: false }]);
    const narrowed = grantedRights(clerk, { permissions: denying });
    expect(isAllowed(narrowed.permissions, 'customers', 'update')).toBe(true);
    expect(isAllowed(narrowed.permissions, 'customers', 'delete')).toBe(false);
  });
});

describe('client secrets', () => {
  it('are kept as their SHA-256 and checked against it', () => {
    const secret = 'cs_0123456789abcdefghijABCDEFGHIJ0123456789';
    const app = { secret_hash: secretHash(secret) } as Parameters<typeof verifyClientSecret>[0];
    expect(app.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyClientSecret(app, secret)).toBe(true);
    expect(verifyClientSecret(app, `${secret}x`)).toBe(false);
    expect(verifyClientSecret({ ...app, secret_hash: null }, secret)).toBe(false);
  });
});
