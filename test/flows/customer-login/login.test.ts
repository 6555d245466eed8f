/**
 * Login lockout (auth.md 5.3) and customer sign-in against the real local DynamoDB emulator,
 * with the manual clock: five failures inside 15 minutes lock for 10 minutes from the fifth;
 * locked attempts are refused without counting or extending; a success or the end of a lock
 * resets; unknown names are never counted; concurrent failures each count once.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { LOCKOUT_RULE, lockoutKey, withLockout, type LoginCheck } from '../../../shared/modules/identity/lockout';
import { customerCreate } from '../../../shared/modules/customers/customer-schemas';
import { createCustomer } from '../../../shared/modules/customers/customers';
import { customerLockoutKey, signInCustomer } from '../../../shared/flows/customer-login/login';
import { db } from '../../../shared/store/client';
import type { ItemKey } from '../../../shared/store/keys';
import { Harness, TABLE, useEmulatedTable } from '../../local/fixtures/dynamo-harness';
import { ManualClock } from '../../../infra/local/manual-clock';

const harness = new Harness();
const MINUTE = 60_000;
const START = Date.UTC(2026, 0, 15, 12, 0, 0);
const clock = new ManualClock(START);

useEmulatedTable(harness);

/** Moves the manual clock forward by `ms`. */
function advance(ms: number): void {
  clock.set(clock.nowMs() + ms);
}

/** A login name whose password is `right`; anything else fails, and `ghost` names no one. */
function attempt(key: ItemKey, password: string): Promise<string> {
  return withLockout(key, clock, async (): Promise<LoginCheck<string>> => (password === 'right' ? { outcome: 'success', value: 'signed in' } : { outcome: 'failure' }));
}

/** The API error code an attempt ends with, or `ok`. */
async function outcome(run: Promise<unknown>): Promise<string> {
  try {
    await run;
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

async function stored(key: ItemKey): Promise<Record<string, unknown> | undefined> {
  return (await db().send(new GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true }))).Item;
}

let names = 0;
let key: ItemKey;
beforeEach(() => {
  key = lockoutKey('ACCT#test', 'customers', `Name${++names}`);
});

describe('login lockout', () => {
  it('locks after five failures; while locked even the right password gets account_locked with the seconds left', async () => {
    for (let i = 0; i < 4; i++) {
      expect(await outcome(attempt(key, 'wrong'))).toBe('invalid_login');
      advance(MINUTE);
    }
    // The fifth failure is still answered as a failure, and locks from its own instant.
    expect(await outcome(attempt(key, 'wrong'))).toBe('invalid_login');
    const locked = await attempt(key, 'right').catch((error: unknown) => error);
    expect(locked).toMatchObject({
      status: 401,
      code: 'account_locked',
      meta: { retry_after_seconds: 600 },
      headers: { 'Retry-After': '600' },
    });
    advance(4 * MINUTE + 30_000);
    await expect(attempt(key, 'right')).rejects.toMatchObject({ code: 'account_locked', meta: { retry_after_seconds: 330 } });
  });

  it('neither counts nor extends while locked, and after ten minutes the right password signs in and resets', async () => {
    for (let i = 0; i < 5; i++) await outcome(attempt(key, 'wrong'));
    for (let i = 0; i < 9; i++) {
      advance(MINUTE);
      await expect(attempt(key, i % 2 ? 'right' : 'wrong')).rejects.toMatchObject({ code: 'account_locked', meta: { retry_after_seconds: (9 - i) * 60 } });
    }
    advance(MINUTE - 1);
    await expect(attempt(key, 'right')).rejects.toMatchObject({ code: 'account_locked', meta: { retry_after_seconds: 1 } });
    advance(1);
    expect(await attempt(key, 'right')).toBe('signed in');
    expect(await stored(key)).toBeUndefined();
    // The count starts afresh: four more failures do not lock.
    for (let i = 0; i < 4; i++) expect(await outcome(attempt(key, 'wrong'))).toBe('invalid_login');
    expect(await attempt(key, 'right')).toBe('signed in');
  });

  it('resets on the end of a lock without a success in between', async () => {
    for (let i = 0; i < 5; i++) await outcome(attempt(key, 'wrong'));
    advance(LOCKOUT_RULE.lockMs);
    for (let i = 0; i < 4; i++) expect(await outcome(attempt(key, 'wrong'))).toBe('invalid_login');
    expect(await attempt(key, 'right')).toBe('signed in');
  });

  it('resets the count on a success', async () => {
    for (let i = 0; i < 4; i++) await outcome(attempt(key, 'wrong'));
    expect(await attempt(key, 'right')).toBe('signed in');
    for (let i = 0; i < 4; i++) expect(await outcome(attempt(key, 'wrong'))).toBe('invalid_login');
    expect(await attempt(key, 'right')).toBe('signed in');
  });

  it('counts failures over a rolling 15 minutes: older ones do not count', async () => {
    for (let i = 0; i < 4; i++) await outcome(attempt(key, 'wrong'));
    advance(LOCKOUT_RULE.windowMs);
    // The four are exactly 15 minutes old now: outside the window.
    expect(await outcome(attempt(key, 'wrong'))).toBe('invalid_login');
    expect(await attempt(key, 'right')).toBe('signed in');

    // Spread out: at each failure only the last 15 minutes count.
    for (let i = 0; i < 8; i++) {
      expect(await outcome(attempt(key, 'wrong'))).toBe('invalid_login');
      advance(4 * MINUTE);
    }
    expect(await attempt(key, 'right')).toBe('signed in');
    for (let i = 0; i < 4; i++) {
      await outcome(attempt(key, 'wrong'));
      advance(3 * MINUTE + 30_000);
    }
    // 0, 3.5, 7, 10.5 minutes ago plus now: five inside 15 minutes.
    expect(await outcome(attempt(key, 'wrong'))).toBe('invalid_login');
    expect(await outcome(attempt(key, 'right'))).toBe('account_locked');
  });

  it('never counts unknown names', async () => {
    const unknown = () => withLockout(key, clock, async (): Promise<LoginCheck<string>> => ({ outcome: 'unknown' }));
    for (let i = 0; i < 12; i++) await expect(unknown()).rejects.toMatchObject({ status: 401, code: 'invalid_login', message: 'The username or password is incorrect.' });
    expect(await stored(key)).toBeUndefined();
  });

  it('counts concurrent failures exactly once each', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => outcome(attempt(key, 'wrong'))));
    // Five are counted (the fifth locks); the others find the lock and are not counted.
    expect(results.filter((code) => code === 'invalid_login')).toHaveLength(5);
    expect(results.filter((code) => code === 'account_locked')).toHaveLength(3);
    await expect(attempt(key, 'right')).rejects.toMatchObject({ code: 'account_locked', meta: { retry_after_seconds: 600 } });

    const other = lockoutKey('ACCT#test', 'customers', `Name${++names}`);
    const four = await Promise.all(Array.from({ length: 4 }, () => outcome(attempt(other, 'wrong'))));
    expect(four).toEqual(['invalid_login', 'invalid_login', 'invalid_login', 'invalid_login']);
    expect(((await stored(other))?.failures_ms as number[]).length).toBe(4);
    expect(await attempt(other, 'right')).toBe('signed in');
  });

  it('keeps an expiry on its item so idle state goes away', async () => {
    await outcome(attempt(key, 'wrong'));
    const item = await stored(key);
    expect(item?.ttl).toBeGreaterThanOrEqual(Math.ceil((clock.nowMs() + LOCKOUT_RULE.windowMs) / 1000));
  });
});

describe('customer sign-in', () => {
  const scope = { accountId: 'SHOP', mode: 'test' } as const;

  it('signs in by username (any case) and password; counts wrong passwords per username', async () => {
    const created = await createCustomer(scope, customerCreate.parse({ customer_id: 'ADA', username: 'Ada.Lee', password: 'correct horse', email: 'ada@example.test' }), clock);
    expect((await signInCustomer(scope, { username: 'ada.lee', password: 'correct horse' }, clock)).customer_id).toBe(created.customer_id);
    for (let i = 0; i < 5; i++) {
      await expect(signInCustomer(scope, { username: i % 2 ? 'ADA.LEE' : 'Ada.Lee', password: 'wrong horse' }, clock)).rejects.toMatchObject({ code: 'invalid_login' });
    }
    await expect(signInCustomer(scope, { username: 'ada.lee', password: 'correct horse' }, clock)).rejects.toMatchObject({ code: 'account_locked', meta: { retry_after_seconds: 600 } });
    // The same username in the other mode is someone else.
    await expect(signInCustomer({ ...scope, mode: 'live' }, { username: 'ada.lee', password: 'correct horse' }, clock)).rejects.toMatchObject({ code: 'invalid_login' });
    advance(LOCKOUT_RULE.lockMs);
    expect((await signInCustomer(scope, { username: 'ADA.lee', password: 'correct horse' }, clock)).customer_id).toBe('ADA');
  });

  it('answers unknown usernames and customers without a password like a wrong password, uncounted', async () => {
    await createCustomer(scope, customerCreate.parse({ customer_id: 'NOPASS', username: 'nopass', email: 'np@example.test' }), clock);
    for (const username of ['nobody', 'nopass']) {
      for (let i = 0; i < 6; i++) {
        await expect(signInCustomer(scope, { username, password: 'whatever1' }, clock)).rejects.toMatchObject({
          status: 401,
          code: 'invalid_login',
          message: 'The username or password is incorrect.',
        });
      }
      expect(await stored(customerLockoutKey(scope, username))).toBeUndefined();
    }
  });
});
