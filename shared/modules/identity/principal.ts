/** Who is calling: the authenticated token and what it may do. */
import type { PermissionEntry } from './permissions';
import type { TokenRecord } from './token-records';
import type { Mode, TokenKind, TokenPrefix } from './tokens';

/** The caller of an authenticated request. */
export interface Principal {
  authId: string;
  accountId: string;
  mode: Mode;
  kind: TokenKind;
  prefix: TokenPrefix;
  tokenHash: string;
  /** Write-format permissions (secret tokens; trusted tokens carry a copy of their user's). */
  permissions: PermissionEntry[];
  /** Owners hold every permission whatever the list says. */
  isOwner: boolean;
  /** When the token lapses after this request (epoch ms), or null for never. */
  expiresAtMs: number | null;
  userId?: string;
  customerId?: string;
  /** The token record as authentication left it (after this request's use). */
  record: TokenRecord;
}
