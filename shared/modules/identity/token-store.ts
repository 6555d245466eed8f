/**
 * Where tokens live: the token record (keyed by the token's SHA-256, listed per account, mode
 * and kind by date_created and date_modified), the account-wide pointer from an auth id to
 * it, and the per-kind counters. Also the conditional write that records a token's use (and
 * takes its rate-limit lease) on the authentication hot path.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { NotFoundError } from '../../http/errors';
import { db, table } from '../../store/client';
import { byDate, defineEntity, EXISTS, IS_NEW, transact, TransactionRejectedError, type TransactEntry } from '../../store/entity';
import { authIdKey, counterKey, scope, tokenHashOf, tokenKey } from '../../store/keys';
import { BindingLimitExceededError, isBound, MAX_BINDINGS } from './bindings';
import type { Principal } from '../../core/access/principal';
import { TOKEN_TTL_GRACE_SECONDS, type TokenRecord } from '../../core/access/token-records';
import type { Mode, TokenKind } from '../../core/access/tokens';

/** The listing partition of an account's tokens of one mode and kind. */
function authListPartition(accountId: string, mode: Mode, kind: TokenKind): string {
  return `${accountId}#${mode}#auths#${kind}`;
}

/** When DynamoDB may remove a token that ends at `expiresAtMs` (epoch seconds, a grace period after). */
function tokenTtl(expiresAtMs: number): number {
  return Math.ceil(expiresAtMs / 1000) + TOKEN_TTL_GRACE_SECONDS;
}

/**
 * Tokens: keyed by the token's hash, listed per account, mode and kind by date_created (gsi1)
 * and date_modified (gsi2, where a token stays at its creation: its changes are updates that
 * leave the listing alone), removed by the table's TTL a while after they end.
 */
const tokens = defineEntity<TokenRecord>({ name: 'auth', collection: 'auths', scope: 'account', idField: 'auth_id',
  indexes: { gsi1: 'tokens by date_created within <account>#<mode>#auths#<kind> (offset list by date)', gsi2: 'tokens by date_modified' },
  keyOf: (token) => tokenKey(token.token_hash),
  fromKey: (key) => ({ token_hash: tokenHashOf(key) }),
  indexKeys: (token) => {
    const listing = authListPartition(token.account_id, token.mode, token.kind);
    return { gsi1: byDate(listing, token.created_ms, token.auth_id), gsi2: byDate(listing, token.modified_ms, token.auth_id) };
  },
  expiresAt: (token) => (token.expires_at_ms === undefined ? undefined : tokenTtl(token.expires_at_ms)) });

/** The record a token item holds, or undefined. */
const tokenOf = (item: Record<string, unknown> | undefined): TokenRecord | undefined => item && tokens.recordOf(item);

function counterEntry(accountId: string, mode: Mode, kind: TokenKind, delta: number): TransactEntry {
  return {
    name: 'auth.count',
    item: {
      Update: {
        TableName: table(),
        Key: counterKey(scope(accountId, mode), `auths#${kind}`),
        UpdateExpression: 'ADD n :delta',
        ExpressionAttributeValues: { ':delta': delta },
      },
    },
  };
}

/** The entries that store a new token: its record, its auth id pointer and its count. */
export function newTokenEntries(record: TokenRecord): TransactEntry[] {
  return [
    tokens.putEntry(record, { name: 'auth.create', ifNew: true }),
    {
      name: 'auth.pointer',
      item: { Put: { TableName: table(), Item: { ...authIdKey(record.account_id, record.auth_id), token_pk: tokenKey(record.token_hash).pk }, ConditionExpression: IS_NEW.expression } },
    },
    counterEntry(record.account_id, record.mode, record.kind, 1),
  ];
}

/** Stores a new token (record, pointer and count in one transaction). */
export async function insertToken(record: TokenRecord): Promise<void> {
  await transact(newTokenEntries(record));
}

/** The token record an auth id points to within an account, or undefined. */
export async function findTokenByAuthId(accountId: string, authId: string): Promise<TokenRecord | undefined> {
  const pointer = await db().send(new GetCommand({ TableName: table(), Key: authIdKey(accountId, authId) }));
  const tokenPk = pointer.Item?.token_pk as string | undefined;
  if (!tokenPk) return undefined;
  const result = await db().send(new GetCommand({ TableName: table(), Key: { pk: tokenPk, sk: 'token' }, ConsistentRead: true }));
  return tokenOf(result.Item);
}

/** A token record by the hash of its token string, or undefined (strongly consistent). */
export async function readTokenRecord(tokenHash: string): Promise<TokenRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: table(), Key: tokenKey(tokenHash), ConsistentRead: true }));
  return tokenOf(result.Item);
}

/** Deletes a token, its pointer and its count; 404 when it is already gone (revoked concurrently). */
export async function deleteToken(record: TokenRecord): Promise<void> {
  try {
    await transact([
      { name: 'auth.delete', item: { Delete: { TableName: table(), Key: tokenKey(record.token_hash), ConditionExpression: EXISTS.expression } } },
      { name: 'auth.pointer-delete', item: { Delete: { TableName: table(), Key: authIdKey(record.account_id, record.auth_id) } } },
      counterEntry(record.account_id, record.mode, record.kind, -1),
    ]);
  } catch (error) {
    // Revoked concurrently by someone else: the outcome the caller wanted.
    if (error instanceof TransactionRejectedError) throw new NotFoundError('The auth does not exist.');
    throw error;
  }
}

/**
 * A change of a stored token: attributes to set and to remove (plain names, or `#`-placeholders
 * in `names`), and a new end (`expiresAtMs`, null for never), whose expiry the store sets with it.
 */
export interface TokenChange {
  sets: string[];
  removes: string[];
  values: Record<string, unknown>;
  names: Record<string, string>;
  expiresAtMs?: number | null;
}

/** Applies `change` to an existing token and answers the stored result; 404 when the token is gone. */
export async function changeToken(record: TokenRecord, change: TokenChange): Promise<TokenRecord> {
  const sets = [...change.sets];
  const removes = [...change.removes];
  const values = { ...change.values };
  const names = { ...change.names };
  if (change.expiresAtMs !== undefined) {
    names['#ttl'] = 'ttl';
    if (change.expiresAtMs === null) removes.push('expires_at_ms', '#ttl');
    else {
      sets.push('expires_at_ms = :expires', '#ttl = :ttl');
      values[':expires'] = change.expiresAtMs;
      values[':ttl'] = tokenTtl(change.expiresAtMs);
    }
  }
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: tokenKey(record.token_hash),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: EXISTS.expression,
        ExpressionAttributeValues: values,
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return tokenOf(result.Attributes)!;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') throw new NotFoundError('The auth does not exist.');
    throw error;
  }
}

/** The stored count of an account's tokens of one mode and kind. */
export async function countTokens(accountId: string, mode: Mode, kind: TokenKind): Promise<number> {
  const result = await db().send(new GetCommand({ TableName: table(), Key: counterKey(scope(accountId, mode), `auths#${kind}`) }));
  return Math.max(0, Number(result.Item?.n ?? 0));
}

/** Up to `max` token records of one mode and kind in `date_created` order. */
export async function listTokens(accountId: string, mode: Mode, kind: TokenKind, max: number, descending: boolean): Promise<TokenRecord[]> {
  return tokens.query(
    'gsi1',
    {
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': authListPartition(accountId, mode, kind) },
      ScanIndexForward: !descending,
      Limit: 1000,
    },
    max,
  );
}

/** One use of a token: when it happens, the new end of a sliding idle window, the rate-limit step it takes. */
export interface TokenUse {
  now: number;
  /** Sliding tokens: the window restarts at this use, to end at `expiresAtMs` (and the expiry follows). */
  slide?: { expiresAtMs: number };
  /** The bucket clauses of the lease it takes (rate-limit-store.ts `bucketClauses`). */
  bucket?: { set: string; condition: string; values: Record<string, unknown> };
}

/**
 * Records a use of a token in one conditional write, which holds only for an existing,
 * unexpired token whose bucket can give the lease. Answers the record as stored after it,
 * or, when the write was refused, the record as it was (undefined when the token is gone).
 */
export async function recordTokenUse(tokenHash: string, use: TokenUse): Promise<{ used: TokenRecord } | { refused: TokenRecord | undefined }> {
  const sets = ['last_used_ms = :now'];
  const values: Record<string, unknown> = { ':now': use.now, ...use.bucket?.values };
  const names: Record<string, string> = {};
  if (use.bucket) sets.unshift(use.bucket.set);
  let expiryCondition = '(attribute_not_exists(expires_at_ms) OR expires_at_ms > :now)';
  if (use.slide) {
    sets.push('expires_at_ms = :slide', '#ttl = :ttl');
    values[':slide'] = use.slide.expiresAtMs;
    values[':ttl'] = tokenTtl(use.slide.expiresAtMs);
    names['#ttl'] = 'ttl';
    // A sliding token always has an end; one without it was never valid.
    expiryCondition = 'expires_at_ms > :now';
  }
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: tokenKey(tokenHash),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: `${EXISTS.expression} AND ${expiryCondition}${use.bucket ? ` AND ${use.bucket.condition}` : ''}`,
        ExpressionAttributeValues: values,
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { used: tokenOf(result.Attributes)! };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return { refused: error.Item ? tokenOf(unmarshall(error.Item)) : await readTokenRecord(tokenHash) };
  }
}

/**
 * The entry that binds `path` to the token `record` (auth.md 3.3): it holds only while the
 * token exists and has fewer than `MAX_BINDINGS` bindings, so the 21st fails with no effect.
 */
export function bindingEntry(record: Pick<TokenRecord, 'token_hash'>, path: string): TransactEntry {
  return {
    name: 'auth.bind',
    item: {
      Update: {
        TableName: table(),
        Key: tokenKey(record.token_hash),
        UpdateExpression: 'SET bindings = list_append(if_not_exists(bindings, :none), :one)',
        ConditionExpression: `${EXISTS.expression} AND (attribute_not_exists(bindings) OR size(bindings) < :max)`,
        ExpressionAttributeValues: { ':none': [], ':one': [path], ':max': MAX_BINDINGS },
      },
    },
    onConditionFailed: () => new BindingLimitExceededError(),
  };
}

/** The entry that gives the token `record` uncounted reach over `paths` (after a paid sale). */
export function reachEntry(record: Pick<TokenRecord, 'token_hash'>, paths: string[]): TransactEntry {
  return {
    name: 'auth.reach',
    item: {
      Update: {
        TableName: table(),
        Key: tokenKey(record.token_hash),
        UpdateExpression: 'SET reach = list_append(if_not_exists(reach, :none), :paths)',
        ConditionExpression: EXISTS.expression,
        ExpressionAttributeValues: { ':none': [], ':paths': paths },
      },
    },
  };
}

/**
 * The entry that gives a limited caller customer scope over `customerId`: the binding of
 * `path` (counted; auth.md 3.3) and the token's `customer_id`, which `/customers/me` follows.
 * Undefined for other tokens, or when the token already has exactly this scope. A refused
 * entry means the binding limit was reached meanwhile (422 binding_limit_exceeded).
 */
export function customerScopeEntry(principal: Principal | undefined, path: string, customerId: string): TransactEntry | undefined {
  if (!principal || principal.kind !== 'limited') return undefined;
  const binding = isBound(principal, path) ? undefined : bindingEntry(principal.record, path).item;
  const onConditionFailed = () => new BindingLimitExceededError();
  if (binding?.Update) {
    return {
      name: 'auth.customer-scope',
      item: {
        Update: {
          ...binding.Update,
          UpdateExpression: `${binding.Update.UpdateExpression}, customer_id = :customer_id`,
          ExpressionAttributeValues: { ...binding.Update.ExpressionAttributeValues, ':customer_id': customerId },
        },
      },
      onConditionFailed,
    };
  }
  if (principal.customerId === customerId) return undefined;
  return {
    name: 'auth.customer-scope',
    item: {
      Update: {
        TableName: table(),
        Key: tokenKey(principal.record.token_hash),
        UpdateExpression: 'SET customer_id = :customer_id',
        ConditionExpression: EXISTS.expression,
        ExpressionAttributeValues: { ':customer_id': customerId },
      },
    },
    onConditionFailed,
  };
}
