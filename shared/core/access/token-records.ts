/**
 * The stored form of a token (one item per token, keyed by the token's hash) and the
 * constants of its lifetime rules (auth.md sections 1.2 and 1.5).
 */
import type { PermissionEntry } from './permissions';
import type { Mode, TokenKind, TokenPrefix } from './tokens';

/** Sliding idle lifetimes in milliseconds. */
export const IDLE_LIFETIME_MS: Partial<Record<TokenKind, number>> = {
  limited: 14 * 24 * 3600 * 1000,
  trusted: 60 * 60 * 1000,
};

/** How long after expiry DynamoDB TTL may remove a token record. */
export const TOKEN_TTL_GRACE_SECONDS = 30 * 24 * 3600;

/** A token record (one item per token; its store keys it by `token_hash`). */
export interface TokenRecord {
  /** The SHA-256 of the token string: the record's key (the store keeps it there, not as an attribute). */
  token_hash: string;
  auth_id: string;
  account_id: string;
  mode: Mode;
  kind: TokenKind;
  prefix: TokenPrefix;
  last4: string;
  permissions?: PermissionEntry[];
  is_owner?: boolean;
  comments?: string;
  user_id?: string;
  customer_id?: string;
  oauth_app_id?: string;
  /** Tokens issued through an OAuth grant (auth.md 6.3): its id; a revoked grant ends them (identity/oauth). */
  grant_id?: string;
  /** Direct bindings (counted, at most 20), as API paths such as `carts/7KQ2ZP4M8TWX`. */
  bindings?: string[];
  /** Uncounted reach gained by paying a bound sale: order, payment and customer paths. */
  reach?: string[];
  /** Absolute expiry (secret) or end of the idle window (limited, trusted), epoch ms. */
  expires_at_ms?: number;
  last_used_ms?: number;
  created_ms: number;
  modified_ms: number;
  /** Rate-limit bucket: the GCRA theoretical arrival time, epoch ms. */
  rl_tat?: number;
}
