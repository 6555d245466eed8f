/**
 * Authentication of bearer tokens, fused with expiry, sliding lifetimes and the per-token
 * rate limit: one conditional UpdateItem on the token record does all four, so an
 * authenticated request costs one DynamoDB call. Only contention (a burst) or a failure
 * needs a second one.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { nowMs } from '../clock';
import { config } from '../config';
import { RequestLimitExceededError } from '../http/errors';
import { db, table } from '../store/client';
import { tokenKey } from '../store/keys';
import { ExpiredTokenError, InvalidTokenError } from './errors';
import type { Principal } from './principal';
import { gcra } from './rate-limit';
import { IDLE_LIFETIME_MS, TOKEN_TTL_GRACE_SECONDS, type TokenRecord } from './token-records';
import { hashToken, parseToken } from './tokens';

/**
 * Authenticates `token` and takes one request from its rate-limit bucket. Throws 401
 * invalid_token (missing, malformed, unknown, revoked, expired) or 429.
 */
export async function authenticate(token: string | undefined): Promise<Principal> {
  if (!token) throw new InvalidTokenError();
  const parsed = parseToken(token);
  // Refresh tokens are never bearer tokens; malformed strings never reach the table.
  if (!parsed || parsed.kind === 'refresh') throw new InvalidTokenError();
  const tokenHash = hashToken(token);
  const key = tokenKey(tokenHash);
  const idle = IDLE_LIFETIME_MS[parsed.kind];
  const limit = config().rateLimits.perToken;

  let knownTat: number | undefined;
  for (let attempt = 0; attempt < 8; attempt++) {
    const now = nowMs();
    const decision = gcra(knownTat, now, limit);
    if (!decision.allowed) throw new RequestLimitExceededError(decision.retryAfterMs / 1000);
    const sets = ['rl_tat = :next', 'last_used_ms = :now'];
    const values: Record<string, unknown> = { ':next': decision.nextTat, ':now': now };
    const names: Record<string, string> = {};
    let expiryCondition: string;
    if (idle) {
      sets.push('expires_at_ms = :slide', '#ttl = :ttl');
      values[':slide'] = now + idle;
      values[':ttl'] = Math.ceil((now + idle) / 1000) + TOKEN_TTL_GRACE_SECONDS;
      names['#ttl'] = 'ttl';
      expiryCondition = 'expires_at_ms > :now';
    } else {
      expiryCondition = '(attribute_not_exists(expires_at_ms) OR expires_at_ms > :now)';
    }
    const bucketCondition =
      knownTat === undefined ? '(attribute_not_exists(rl_tat) OR rl_tat <= :now)' : 'rl_tat = :known';
    if (knownTat !== undefined) values[':known'] = knownTat;
    try {
      const result = await db().send(
        new UpdateCommand({
          TableName: table(),
          Key: key,
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: `attribute_exists(pk) AND ${expiryCondition} AND ${bucketCondition}`,
          ExpressionAttributeValues: values,
          ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return toPrincipal(result.Attributes as TokenRecord, tokenHash);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const record = error.Item ? (unmarshall(error.Item) as TokenRecord) : await readRecord(key);
      if (!record) throw new InvalidTokenError();
      if (record.expires_at_ms !== undefined && record.expires_at_ms <= now) throw new ExpiredTokenError();
      // The bucket moved (a burst, or another instance): retry against the stored TAT.
      knownTat = record.rl_tat;
    }
  }
  throw new RequestLimitExceededError(1);
}

async function readRecord(key: { pk: string; sk: string }): Promise<TokenRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }));
  return result.Item as TokenRecord | undefined;
}

/** The principal of a stored token record. */
export function toPrincipal(record: TokenRecord, tokenHash: string): Principal {
  return {
    authId: record.auth_id,
    accountId: record.account_id,
    mode: record.mode,
    kind: record.kind,
    prefix: record.prefix,
    tokenHash,
    permissions: record.permissions ?? [],
    isOwner: record.is_owner === true,
    expiresAtMs: record.expires_at_ms ?? null,
    ...(record.user_id ? { userId: record.user_id } : {}),
    ...(record.customer_id ? { customerId: record.customer_id } : {}),
  };
}

/** Seconds until the principal's token lapses (X-Token-Expires-In-Seconds), or undefined for never. */
export function expiresInSeconds(principal: Principal, now = nowMs()): number | undefined {
  if (principal.expiresAtMs === null) return undefined;
  return Math.max(0, Math.floor((principal.expiresAtMs - now) / 1000));
}
