/**
 * Where OAuth grants and the strings that lead to them live (auth.md 6.2, 6.3):
 *
 * - **grant** `<account>#oauth_grants#<grant_id>` / `record`, listed per account by creation
 *   (gsi1, to revoke a user's or an app's grants); kept a day past its last refresh token.
 * - **code** `oauthcode#<sha256>` / `code`: spent by a conditional update (never twice), kept a
 *   day after it lapses so a second use is recognised and revokes what the first issued.
 * - **refresh token** `oauthrefresh#<sha256>` / `refresh`: spent the same way, kept a day past
 *   its 30 days for the same reason.
 * - **consent ticket** `oauthconsent#<sha256>` / `consent`: taken by a conditional delete.
 *
 * Every expiry is also the table's TTL (with the grace above), so nothing piles up.
 */
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, table } from '../../../store/client';
import { byDate, defineEntity, EXISTS, TransactionRejectedError, writeOne, type RecordScope, type TransactEntry } from '../../../store/entity';
import type { ItemKey } from '../../../store/keys';
import { recordOf } from '../../../store/storage';
import type { CodeRecord, ConsentRecord, GrantRecord, RefreshRecord } from './oauth-records';

/** How long after it lapses an item stays, so a late second use is still recognised (ms). */
const KEEP_AFTER_MS = 24 * 3600 * 1000;

/** Access tokens a grant lists for deletion when it is revoked (a long-lived grant refreshes thousands of times). */
const MAX_LISTED_ACCESS_TOKENS = 100;

const ttlOf = (expiresAtMs: number) => Math.ceil((expiresAtMs + KEEP_AFTER_MS) / 1000);

const grants = defineEntity<GrantRecord>({
  name: 'oauth grant',
  collection: 'oauth_grants',
  scope: 'account',
  idField: 'grant_id',
  indexes: { gsi1: "OAuth grants of an account by creation (revoking a user's or an app's)" },
  indexKeys: (grant, partition) => ({ gsi1: byDate(partition, grant.created_ms, grant.grant_id) }),
  expiresAt: (grant) => ttlOf(grant.expires_at_ms),
});

const codeKey = (hash: string): ItemKey => ({ pk: `oauthcode#${hash}`, sk: 'code' });
const refreshKey = (hash: string): ItemKey => ({ pk: `oauthrefresh#${hash}`, sk: 'refresh' });
const consentKey = (hash: string): ItemKey => ({ pk: `oauthconsent#${hash}`, sk: 'consent' });

const codes = defineEntity<CodeRecord>({
  name: 'oauth code',
  collection: 'oauth_codes',
  scope: 'account',
  idField: 'code_hash',
  keyOf: (code) => codeKey(code.code_hash),
  fromKey: (key) => ({ code_hash: key.pk.slice('oauthcode#'.length) }),
  expiresAt: (code) => ttlOf(code.expires_at_ms),
});

const refreshTokens = defineEntity<RefreshRecord>({
  name: 'oauth refresh token',
  collection: 'oauth_refresh_tokens',
  scope: 'account',
  idField: 'refresh_hash',
  keyOf: (refresh) => refreshKey(refresh.refresh_hash),
  fromKey: (key) => ({ refresh_hash: key.pk.slice('oauthrefresh#'.length) }),
  expiresAt: (refresh) => ttlOf(refresh.expires_at_ms),
});

const consents = defineEntity<ConsentRecord>({
  name: 'oauth consent',
  collection: 'oauth_consents',
  scope: 'account',
  idField: 'ticket_hash',
  keyOf: (consent) => consentKey(consent.ticket_hash),
  fromKey: (key) => ({ ticket_hash: key.pk.slice('oauthconsent#'.length) }),
  expiresAt: (consent) => Math.ceil(consent.expires_at_ms / 1000) + 3600,
});

function account(accountId: string): RecordScope {
  return { accountId, mode: 'live' };
}

// --- grants

/** The entry that stores a new grant (its id must be new). */
export function newGrantEntry(grant: GrantRecord): TransactEntry {
  return grants.putEntry(grant, { ifNew: true, name: 'oauth-grant.create' });
}

/** A grant by id within its account, or undefined (strongly consistent). */
export function findGrant(accountId: string, grantId: string): Promise<GrantRecord | undefined> {
  return grants.find(account(accountId), grantId);
}

/** The grants of an account in creation order (bounded by `max`). */
export function listGrants(accountId: string, max: number): Promise<GrantRecord[]> {
  return grants.query('gsi1', { KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': grants.partition(account(accountId)) }, Limit: 1000 }, max);
}

/**
 * The entry that moves a grant on to its next refresh token and records the access token issued
 * with it; it holds only while `oldHash` is still the grant's current refresh token and the grant
 * is not revoked (`onRefused` otherwise).
 */
export function rotateGrantEntry(grant: GrantRecord, change: { oldHash: string; newHash: string; authId: string; now: number; expiresAtMs: number }, onRefused: () => Error): TransactEntry {
  return grants.updateEntry(account(grant.account_id), grant.grant_id, {
    name: 'oauth-grant.rotate',
    set: {
      refresh_hash: change.newHash,
      // The newest ones only: deleting them is clean-up, the grant check is what ends them all.
      access_auth_ids: [...grant.access_auth_ids, change.authId].slice(-MAX_LISTED_ACCESS_TOKENS),
      modified_ms: change.now,
      expires_at_ms: change.expiresAtMs,
      ttl: ttlOf(change.expiresAtMs),
    },
    condition: {
      expression: 'attribute_exists(pk) AND refresh_hash = :old_refresh AND attribute_not_exists(revoked)',
      values: { ':old_refresh': change.oldHash },
    },
    onConditionFailed: onRefused,
  });
}

/** Marks a grant revoked (idempotent: a revoked grant stays so; a missing one stays missing). */
export async function markGrantRevoked(grant: GrantRecord, now: number): Promise<void> {
  try {
    await writeOne(grants.updateEntry(account(grant.account_id), grant.grant_id, { name: 'oauth-grant.revoke', set: { revoked: true, modified_ms: now }, condition: EXISTS }));
  } catch (error) {
    if (!(error instanceof TransactionRejectedError)) throw error;
  }
}

// --- codes

/** The entry that stores a new authorization code. */
export function newCodeEntry(code: CodeRecord): TransactEntry {
  return codes.putEntry(code, { ifNew: true, name: 'oauth-code.create' });
}

/** A code by the hash of its string, or undefined (strongly consistent). */
export async function findCode(codeHash: string): Promise<CodeRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: table(), Key: codeKey(codeHash), ConsistentRead: true }));
  return result.Item && codes.recordOf(result.Item);
}

/** The entry that spends a code at `now`: only once, and only before it lapses (`onRefused` otherwise). */
export function spendCodeEntry(codeHash: string, now: number, onRefused: () => Error): TransactEntry {
  return {
    name: 'oauth-code.spend',
    item: {
      Update: {
        TableName: table(),
        Key: codeKey(codeHash),
        UpdateExpression: 'SET used_ms = :now',
        ConditionExpression: `${EXISTS.expression} AND attribute_not_exists(used_ms) AND expires_at_ms > :now`,
        ExpressionAttributeValues: { ':now': now },
      },
    },
    onConditionFailed: onRefused,
  };
}

// --- refresh tokens

/** The entry that stores a new refresh token. */
export function newRefreshEntry(refresh: RefreshRecord): TransactEntry {
  return refreshTokens.putEntry(refresh, { ifNew: true, name: 'oauth-refresh.create' });
}

/** A refresh token by the hash of its string, or undefined (strongly consistent). */
export async function findRefresh(refreshHash: string): Promise<RefreshRecord | undefined> {
  const result = await db().send(new GetCommand({ TableName: table(), Key: refreshKey(refreshHash), ConsistentRead: true }));
  return result.Item && refreshTokens.recordOf(result.Item);
}

/** The entry that spends a refresh token at `now`: only once, and only before it lapses (`onRefused` otherwise). */
export function spendRefreshEntry(refreshHash: string, now: number, onRefused: () => Error): TransactEntry {
  return {
    name: 'oauth-refresh.spend',
    item: {
      Update: {
        TableName: table(),
        Key: refreshKey(refreshHash),
        UpdateExpression: 'SET used_ms = :now',
        ConditionExpression: `${EXISTS.expression} AND attribute_not_exists(used_ms) AND expires_at_ms > :now`,
        ExpressionAttributeValues: { ':now': now },
      },
    },
    onConditionFailed: onRefused,
  };
}

// --- consent tickets

/** The entry that stores a consent ticket. */
export function newConsentEntry(consent: ConsentRecord): TransactEntry {
  return consents.putEntry(consent, { ifNew: true, name: 'oauth-consent.create' });
}

/** Takes a consent ticket (deletes it and answers what it held), or undefined when it is unknown or already taken. */
export async function takeConsent(ticketHash: string): Promise<ConsentRecord | undefined> {
  try {
    const result = await db().send(
      new DeleteCommand({ TableName: table(), Key: consentKey(ticketHash), ConditionExpression: EXISTS.expression, ReturnValues: 'ALL_OLD' }),
    );
    return result.Attributes && { ...recordOf<ConsentRecord>(result.Attributes), ticket_hash: ticketHash };
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}
