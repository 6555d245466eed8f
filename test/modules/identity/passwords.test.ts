/**
 * Passwords (auth.md 9.3): the rules, the hash format at the current parameters, hashes of older
 * parameters still verified and flagged for rewriting, and the rewrite at the next successful
 * login for users and customers alike (against the local DynamoDB emulator), through the one
 * password check both logins share.
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../infra/local/manual-clock';
import { signInCustomer } from '../../../shared/flows/customer-login/login';
import { customerCreate } from '../../../shared/modules/customers/customer-schemas';
import { findCustomerRecord, rehashCustomerPassword } from '../../../shared/modules/customers/customer-store';
import { createCustomer } from '../../../shared/modules/customers/customers';
import { checkPassword } from '../../../shared/modules/identity/lockout';
import { checkPasswordRules, COMMON_PASSWORD_COUNT, hashPassword, isCommonPassword, needsRehash, verifyPassword } from '../../../shared/modules/identity/passwords';
import { signInUser } from '../../../shared/modules/identity/user-sign-in';
import { findUser, insertUser } from '../../../shared/modules/identity/user-store';
import { db } from '../../../shared/store/client';
import { userKey } from '../../../shared/store/keys';
import { Harness, TABLE, useEmulatedTable } from '../../local/fixtures/dynamo-harness';

/** A hash as earlier versions wrote it: scrypt N=2^15, r=8, p=1. */
function earlierHash(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password.normalize('NFC'), salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  return `scrypt$15$8$1$${salt.toString('base64')}$${hash.toString('base64')}`;
}

describe('password hashes', () => {
  it('are scrypt N=2^15, r=8, p=3 with a 16-byte salt and a 32-byte output, and verify in both directions', async () => {
    const stored = await hashPassword('correct horse battery staple');
    const [kind, logN, r, p, salt, hash] = stored.split('$');
    expect([kind, logN, r, p]).toEqual(['scrypt', '15', '8', '3']);
    expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
    expect(Buffer.from(hash!, 'base64')).toHaveLength(32);
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', stored)).toBe(false);
    expect(needsRehash(stored)).toBe(false);
    // NFC: the composed and decomposed forms of a name are one password.
    expect(await verifyPassword('cafe\u0301 au lait please', await hashPassword('caf\u00e9 au lait please'))).toBe(true);
  });

  it('of earlier parameters still verify with their own, and are flagged for rewriting', async () => {
    const old = earlierHash('an older passphrase');
    expect(await verifyPassword('an older passphrase', old)).toBe(true);
    expect(await verifyPassword('another passphrase', old)).toBe(false);
    expect(needsRehash(old)).toBe(true);
    expect(await verifyPassword('x', 'not a hash')).toBe(false);
  });
});

describe('password rules (users)', () => {
  const fails = (password: unknown, reason: string) =>
    expect(() => checkPasswordRules(password, 'jsmith', 'j.smith@example.test')).toThrow(expect.objectContaining({ code: 'invalid_input', meta: expect.objectContaining({ property: 'password', reason }) }));

  it('need 15 to 128 characters after NFC normalisation, not blank, not the user id or email, not common', () => {
    fails('fourteen chars', 'too_short');
    fails('x'.repeat(129), 'too_long');
    fails(' '.repeat(20), 'invalid');
    fails('J.SMITH@example.test', 'invalid');
    fails('passwordpassword', 'invalid');
    fails('1qaz2wsx3edc4rfv', 'invalid');
    fails(42, 'invalid');
    expect(checkPasswordRules('fifteen chars!!', 'jsmith', 'j.smith@example.test')).toBe('fifteen chars!!');
    // Characters, not UTF-16 units or bytes: 15 emoji are enough, 14 combining sequences composed by NFC are not.
    expect(() => checkPasswordRules('😀'.repeat(15), 'jsmith', 'j@example.test')).not.toThrow();
    fails('e\u0301'.repeat(14), 'too_short');
  });

  it('check a list of at least 10,000 common passwords, case-insensitively', () => {
    expect(COMMON_PASSWORD_COUNT).toBeGreaterThanOrEqual(10_000);
    expect(isCommonPassword('PasswordPassword')).toBe(true);
    expect(isCommonPassword('correct horse battery staple 7')).toBe(false);
  });
});

describe('the shared password check', () => {
  it('spends a dummy check on an unknown name, rewrites old hashes only on success', async () => {
    const rewritten: string[] = [];
    const rehash = async (hash: string) => void rewritten.push(hash);
    expect(await checkPassword('whatever', undefined, rehash)).toEqual({ outcome: 'unknown' });
    const old = earlierHash('an older passphrase');
    expect(await checkPassword('wrong', { value: 1, hash: old }, rehash)).toEqual({ outcome: 'failure' });
    expect(rewritten).toEqual([]);
    expect(await checkPassword('an older passphrase', { value: 1, hash: old }, rehash)).toEqual({ outcome: 'success', value: 1 });
    expect(rewritten).toHaveLength(1);
    expect(needsRehash(rewritten[0]!)).toBe(false);
    expect(await verifyPassword('an older passphrase', rewritten[0]!)).toBe(true);
    expect(await checkPassword('an older passphrase', { value: 1, hash: rewritten[0]! }, rehash)).toEqual({ outcome: 'success', value: 1 });
    expect(rewritten).toHaveLength(1);
  });
});

describe('rewriting at the next successful login', () => {
  const harness = new Harness();
  useEmulatedTable(harness);
  const clock = new ManualClock(Date.UTC(2026, 0, 15, 12));

  it('rewrites a customer hash of earlier parameters, leaving date_modified alone', async () => {
    const scope = { accountId: 'SHOP', mode: 'test' } as const;
    const created = await createCustomer(scope, customerCreate.parse({ customer_id: 'OLD', username: 'old.timer', password: 'an older passphrase', email: 'old@example.test' }), clock);
    await rehashCustomerPassword(scope, 'OLD', created.password_hash!, earlierHash('an older passphrase'));
    expect(needsRehash((await findCustomerRecord(scope, 'OLD'))!.password_hash!)).toBe(true);
    await signInCustomer(scope, { username: 'old.timer', password: 'an older passphrase' }, clock);
    const after = (await findCustomerRecord(scope, 'OLD'))!;
    expect(after.password_hash!.startsWith('scrypt$15$8$3$')).toBe(true);
    expect(after.modified_ms).toBe(created.modified_ms);
    expect((await signInCustomer(scope, { username: 'old.timer', password: 'an older passphrase' }, clock)).customer_id).toBe('OLD');
  });

  it('rewrites a user hash of earlier parameters and records the login', async () => {
    const now = clock.nowMs();
    await insertUser({
      user_id: 'Veteran', account_id: 'SHOP', name: 'V', email: 'veteran@example.test', password_hash: earlierHash('short old pw'),
      is_account_owner: false, language: 'en', locale: 'en-US', permissions: [], created_ms: now, modified_ms: now,
    });
    // Shorter than 15 characters, set before the rule: it keeps signing in until it is changed.
    expect((await signInUser('veteran@EXAMPLE.test', 'short old pw', clock)).user_id).toBe('Veteran');
    const stored = (await findUser('veteran'))!;
    expect(stored.password_hash!.startsWith('scrypt$15$8$3$')).toBe(true);
    expect(stored.last_login_ms).toBe(now);
    expect(stored.modified_ms).toBe(now);
    expect((await db().send(new GetCommand({ TableName: TABLE, Key: userKey('VETERAN'), ConsistentRead: true }))).Item?.user_id).toBe('Veteran');
    await expect(signInUser('veteran', 'wrong', clock)).rejects.toMatchObject({ code: 'invalid_login' });
    await expect(signInUser('nobody', 'wrong', clock)).rejects.toMatchObject({ code: 'invalid_login' });
  });
});
