/**
 * How OAuth secrets are kept (auth.md 1.2, 6.1): client secrets, codes, refresh tokens and
 * consent tickets are long random strings, stored only as their SHA-256 and compared in
 * constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { OAuthAppRecord } from './oauth-records';

/** The SHA-256 (hex) of a secret string: how client secrets, codes, refresh tokens and tickets are stored. */
export function secretHash(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Whether `secret` is the app's client secret (compared as hashes, in constant time). */
export function verifyClientSecret(app: OAuthAppRecord, secret: string): boolean {
  if (!app.secret_hash) return false;
  const given = Buffer.from(secretHash(secret), 'hex');
  const stored = Buffer.from(app.secret_hash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

