/** Token strings: format, generation, hashing and redaction (auth.md section 1). */
import { createHash } from 'node:crypto';
import { randomBase62 } from '../ids';

/** Token kinds by prefix: secret, limited, trusted (and OAuth refresh, never a bearer). */
export const TOKEN_KINDS = { sk: 'secret', lt: 'limited', tt: 'trusted', rt: 'refresh' } as const;

/** Token prefix, e.g. `sk`. */
export type TokenPrefix = keyof typeof TOKEN_KINDS;
/** Token kind name, e.g. `secret`. */
export type TokenKind = (typeof TOKEN_KINDS)[TokenPrefix];
/** `live` or `test`. */
export type Mode = 'live' | 'test';

/** A token split into its parts. */
export interface ParsedToken {
  prefix: TokenPrefix;
  kind: TokenKind;
  mode: Mode;
  token: string;
}

const TOKEN_PATTERN = /^(sk|lt|tt|rt)\.(live|test)\.[0-9A-Za-z]{32,128}$/;

/** Parses `<kind>.<mode>.<random>`; returns undefined for anything malformed. */
export function parseToken(token: string): ParsedToken | undefined {
  const match = TOKEN_PATTERN.exec(token);
  if (!match) return undefined;
  const prefix = match[1] as TokenPrefix;
  return { prefix, kind: TOKEN_KINDS[prefix], mode: match[2] as Mode, token };
}

/** A new token string: prefix, mode and 40 random base62 characters. */
export function newToken(prefix: TokenPrefix, mode: Mode): string {
  return `${prefix}.${mode}.${randomBase62(40)}`;
}

/** The lookup key of a token: lowercase hex SHA-256 of the whole string (never stored in clear). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The display form: kind, mode, three dots and the last four characters (`sk.live...B5NG`). */
export function redactToken(prefix: TokenPrefix, mode: Mode, last4: string): string {
  return `${prefix}.${mode}...${last4}`;
}

/** Extracts the bearer token from an `Authorization` header value (scheme case-insensitive). */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}
